import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { Client } from 'undici';
import { engineError, hardenedHostConfig } from '../docker-executor.js';
import { CallLogFramer, type CallLogWatch } from './call-log-framer.js';
import { exitMessage } from './container-exit.js';
import { attachDemuxer } from './attach-demux.js';
import { MAX_RESPONSE_BYTES, type HotResponse } from './hot-codec.js';
import { HotCallError, type HotAnswer, type HotContainerSpec } from './hot-container.js';
import { StderrAttach } from './stderr-attach.js';
import { decodeStreamResponse, type StreamRequest } from './stream-codec.js';

/** Where the socket folder is mounted in the container, as the `http-stream` contract has it. */
export const CONTAINER_SOCKET_DIR = '/tmp/iofs';
const LISTENER = 'lsnr.sock';
/** The frame line functions write to their output as each call starts: `<name>=<Fn-Call-Id>`. */
export const LOG_FRAME_NAME = 'FERRUM_CALL';
/** A function that writes no frame lines: how long stderr trailing an answer still belongs to its call. */
const LOG_SETTLE_MS = 250;
/** How long a container that closed its output gets to report its exit state (a busy engine is slow). */
const EXIT_REPORT_MS = 5000;

export interface StreamContainerSpec extends HotContainerSpec {
  /** A host folder (shared with the engine) under which each container gets its socket folder. */
  socketRoot: string;
  /** How long the function may take to listen on its socket. */
  bootMs: number;
  /** Told of the call logs a bound ended rather than the container's output (call-log-framer.ts). */
  logWatch?: CallLogWatch;
}

/** The engine's unix socket, when docker-modem reaches it through one (else null: its own attach stream is used). */
async function engineSocketOf(docker: Docker): Promise<string | null> {
  const modem = docker.modem as { getSocketPath?: () => Promise<unknown> | undefined };
  const socketPath = await modem.getSocketPath?.();
  return typeof socketPath === 'string' ? socketPath : null;
}

/** Resolves once `file` exists in `dir` (a symlink the function makes once it listens), or rejects at `until`. */
function waitForFile(dir: string, file: string, bootMs: number, gone: Promise<string>): Promise<void> {
  const target = path.join(dir, file);
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      watcher.close();
      clearInterval(poll);
      clearTimeout(limit);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      if (fs.existsSync(target)) finish();
    };
    const watcher = fs.watch(dir, check);
    watcher.on('error', () => {});
    // A watch can miss an event on some filesystems: look now and then too.
    const poll = setInterval(check, 25);
    const limit = setTimeout(
      () =>
        finish(
          new Error(
            `the function did not listen on ${CONTAINER_SOCKET_DIR}/${file} within ${bootMs} ms ` +
              "(a runner in a container needs FERRUM_FUNCTIONS_SOCKET_DIR to be a folder the Docker engine's host sees at the same path)",
          ),
        ),
      bootMs,
    );
    void gone.then((message) => finish(new Error(`${message} before listening on its socket`)));
    check();
  });
}

/**
 * One running container of an `http-stream` function: the function listens on a unix socket in
 * a host folder mounted at /tmp/iofs, and the runner sends each call to it as an HTTP/1.1
 * request over a keep-alive connection of its own — no relay through the engine. One call at a
 * time; a container that exits or overruns a call's time is dead: `onDeath` tells its owner.
 */
export class StreamContainer {
  onDeath: () => void = () => {};
  private dead = false;
  private busy = false;
  private removal: Promise<void> | null = null;
  private markRemoved: () => void = () => {};
  readonly removed = new Promise<void>((resolve) => (this.markRemoved = resolve));
  private markExited: (message: string) => void = () => {};
  /** Resolves with how the process ended once its output closes. */
  private readonly exited = new Promise<string>((resolve) => (this.markExited = resolve));
  private readonly logs: CallLogFramer;
  private client: Client | null = null;
  /** Stderr on a connection of its own to the engine's unix socket (read in bursts), or else docker-modem's attach stream. */
  private stderr: StderrAttach | null = null;
  private output: Duplex | null = null;
  /** Fails the call under way. */
  private failCall: ((error: HotCallError) => void) | null = null;
  private callId: string | null = null;
  private exitSeen = false;
  /** The call under way's deadline (epoch ms) and time allowed, for the watchdog. */
  private deadline = 0;
  private allowedMs = 0;
  /** Fires at or before the call under way's deadline (see arm). */
  private watchdog: NodeJS.Timeout | null = null;
  private watchdogDue = 0;

  private constructor(
    private readonly container: Docker.Container,
    private readonly socketDir: string,
    private readonly memoryBytes: number,
    logWatch: CallLogWatch | null,
  ) {
    this.logs = new CallLogFramer(LOG_FRAME_NAME, LOG_SETTLE_MS, () => this.readStderrNow(), logWatch);
  }

  /** Creates the socket folder and the container, starts it and waits until it listens; on failure nothing is left. */
  static async start(docker: Docker, spec: StreamContainerSpec): Promise<StreamContainer> {
    await fs.promises.mkdir(spec.socketRoot, { recursive: true, mode: 0o755 });
    const socketDir = await fs.promises.mkdtemp(path.join(spec.socketRoot, 'fn-'));
    // The function may run as any user: it must be able to create its socket here.
    await fs.promises.chmod(socketDir, 0o777);
    let container: Docker.Container;
    try {
      container = await docker.createContainer({
        Image: spec.image,
        Env: [
          ...spec.env,
          'FN_FORMAT=http-stream',
          `FN_LISTENER=unix:${CONTAINER_SOCKET_DIR}/${LISTENER}`,
          `FN_LOGFRAME_NAME=${LOG_FRAME_NAME}`,
          'FN_LOGFRAME_HDR=Fn-Call-Id',
        ],
        Labels: spec.labels,
        AttachStdout: false,
        AttachStderr: true,
        Tty: false,
        HostConfig: { ...hardenedHostConfig(spec), Binds: [`${socketDir}:${CONTAINER_SOCKET_DIR}`] },
      });
    } catch (error) {
      await fs.promises.rm(socketDir, { recursive: true, force: true });
      throw engineError(`create a container of ${spec.image}`, error);
    }
    const hot = new StreamContainer(container, socketDir, spec.memoryBytes, spec.logWatch ?? null);
    try {
      await hot.attachAndStart(await engineSocketOf(docker));
    } catch (error) {
      await hot.stop();
      throw engineError(`start a container of ${spec.image}`, error);
    }
    try {
      await waitForFile(socketDir, LISTENER, spec.bootMs, hot.exited);
    } catch (error) {
      await hot.stop();
      throw error;
    }
    hot.client = new Client('http://localhost', {
      socketPath: path.join(socketDir, LISTENER),
      pipelining: 1,
      keepAliveTimeout: 600_000,
      keepAliveMaxTimeout: 600_000,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    hot.client.on('connectionError', () => {});
    return hot;
  }

  private async attachAndStart(engineSocket: string | null): Promise<void> {
    // Stdout is not the answer in this contract: it is not even attached (the engine drops it).
    // Hijacked, stderr comes on the bare connection rather than through an HTTP response's
    // parser: a frame line per call arrives on it.
    const demux = attachDemuxer({ stderr: (piece) => this.logs.push(piece) });
    const onEnd = () => void this.onExit();
    if (engineSocket !== null) {
      // Once the function writes frame lines, a line goes to its call however late it is read:
      // then its stderr is read in bursts (stderr-attach.ts), not once per call.
      const read = (chunk: Buffer) => {
        demux(chunk);
        if (this.logs.framesCalls) this.stderr?.pace();
      };
      this.stderr = await StderrAttach.open(engineSocket, this.container.id, read, onEnd);
    } else {
      const stream = (await this.container.attach({
        stream: true,
        stdout: false,
        stderr: true,
        hijack: true,
      })) as Duplex;
      this.output = stream;
      stream.on('data', demux);
      stream.on('end', onEnd);
      stream.on('close', onEnd);
      stream.on('error', onEnd);
    }
    await this.container.start();
  }

  /** Whatever the function wrote to stderr and is still unread is read at the event loop's next poll. */
  private readStderrNow(): void {
    this.stderr?.readNow();
  }

  /** Resolves once the event loop has polled since the stderr was read again (two check phases: one full poll between). */
  private stderrReadFirst(): Promise<void> {
    this.readStderrNow();
    return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  }

  get id(): string {
    return this.container.id;
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** Sends one call and waits at most `timeoutMs` for its answer; rejects with HotCallError. */
  async send(request: StreamRequest, timeoutMs: number): Promise<HotAnswer> {
    if (this.dead || this.busy || !this.client)
      throw new HotCallError('broken', 'the function container is not available', '');
    this.busy = true;
    this.callId = request.callId;
    this.logs.open(request.callId);
    this.arm(timeoutMs);
    try {
      const response = await this.exchange(request);
      return { response, log: this.logs.answered(request.callId) };
    } catch (error) {
      if (error instanceof HotCallError) throw error;
      // The connection broke: the function went away (say how, once the engine tells), or answers with garbage.
      this.readStderrNow();
      let bound: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        this.exited,
        new Promise<null>((resolve) => (bound = setTimeout(() => resolve(null), EXIT_REPORT_MS + 1000))),
      ]);
      clearTimeout(bound);
      const message = exit ?? `the function's socket failed: ${(error as Error).message}`;
      this.die('broken', message);
      throw new HotCallError('broken', message, this.logs.closeNow(request.callId));
    } finally {
      this.failCall = null;
      this.callId = null;
      this.busy = false;
    }
  }

  /**
   * Sets the call's deadline. One watchdog timer serves the container's calls: it is set anew
   * only when none is set or it would fire after this deadline, so a call of a steady route
   * sets and clears no timer of its own; when it fires it fails the call under way past its
   * deadline, or waits again until that call's deadline, or (between calls) stops.
   */
  private arm(timeoutMs: number): void {
    this.allowedMs = timeoutMs;
    this.deadline = Date.now() + timeoutMs;
    if (this.watchdog !== null && this.watchdogDue <= this.deadline) return;
    this.setWatchdog(timeoutMs);
  }

  private setWatchdog(ms: number): void {
    if (this.watchdog !== null) clearTimeout(this.watchdog);
    this.watchdogDue = Date.now() + ms;
    this.watchdog = setTimeout(() => this.watch(), ms);
    // A call under way holds the process through its socket; an idle container's watchdog does not.
    this.watchdog.unref();
  }

  private watch(): void {
    this.watchdog = null;
    if (!this.busy || this.dead) return;
    const left = this.deadline - Date.now();
    if (left > 0) {
      this.setWatchdog(left);
      return;
    }
    // The call's stderr so far is read first (one poll; setImmediate runs after it), unless it was answered meanwhile.
    this.readStderrNow();
    const callId = this.callId;
    setImmediate(() => {
      if (this.busy && this.callId === callId)
        this.die('timeout', `the function did not answer within ${this.allowedMs} ms`);
    });
  }

  /**
   * One POST /call on the keep-alive connection; the answer gathered straight from undici's
   * handler (no body stream). The container's death (`fail`) rejects it at once.
   */
  private exchange(request: StreamRequest): Promise<HotResponse> {
    return new Promise<HotResponse>((resolve, reject) => {
      this.failCall = reject;
      const chunks: Buffer[] = [];
      let bytes = 0;
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      this.client!.dispatch(
        { path: '/call', method: 'POST', headers: request.headers, body: request.body },
        {
          // Its presence selects undici's current handler interface.
          onRequestStart() {},
          onResponseStart(_controller, statusCode, responseHeaders) {
            status = statusCode;
            headers = responseHeaders as IncomingHttpHeaders;
          },
          onResponseData(controller, chunk) {
            bytes += chunk.length;
            if (bytes > MAX_RESPONSE_BYTES) {
              controller.abort(new Error(`the response is larger than ${MAX_RESPONSE_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          },
          onResponseEnd() {
            try {
              resolve(decodeStreamResponse(status, headers, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
            } catch (error) {
              reject(error as Error);
            }
          },
          onResponseError(_controller, error) {
            reject(error);
          },
        },
      );
    });
  }

  /** Kills and removes the container; a call under way fails. Resolves once it is gone. */
  async stop(): Promise<void> {
    if (!this.dead) {
      this.dead = true;
      // A call under way fails with its log so far: what waits unread on its stderr is read first.
      if (this.failCall) await this.stderrReadFirst();
      this.fail('broken', 'the function container was stopped');
    }
    return this.remove();
  }

  private async onExit(): Promise<void> {
    if (this.exitSeen) return;
    this.exitSeen = true;
    if (this.dead) {
      this.markExited('the function container exited');
      return;
    }
    this.dead = true;
    this.onDeath();
    const message = await exitMessage(this.container, this.memoryBytes, EXIT_REPORT_MS);
    this.markExited(message);
    this.fail('broken', message);
    void this.remove();
  }

  private die(kind: 'timeout' | 'broken', message: string): void {
    if (this.dead) return;
    this.dead = true;
    this.onDeath();
    this.fail(kind, message);
    void this.remove();
  }

  private fail(kind: 'timeout' | 'broken', message: string): void {
    const fail = this.failCall;
    this.failCall = null;
    if (!fail) return;
    const callId = this.callId;
    fail(new HotCallError(kind, message, callId ? this.logs.closeNow(callId) : ''));
  }

  private remove(): Promise<void> {
    this.removal ??= (async () => {
      if (this.watchdog !== null) clearTimeout(this.watchdog);
      this.watchdog = null;
      await this.client?.destroy().catch(() => {});
      await this.container.remove({ force: true }).catch(() => {});
      // What the function wrote before it was stopped is still read, until the engine closes the stream.
      await this.stderr?.close();
      this.output?.destroy();
      this.logs.end();
      this.markExited('the function container was stopped');
      await fs.promises.rm(this.socketDir, { recursive: true, force: true }).catch(() => {});
      this.markRemoved();
    })();
    return this.removal;
  }
}
