import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { engineError, hardenedHostConfig, type ContainerLimits } from '../docker-executor.js';
import { demuxAttach } from './attach-demux.js';
import { CallLogFramer } from './call-log-framer.js';
import { exitMessage } from './container-exit.js';
import type { HotCodec, HotResponse, ResponseDecoder } from './hot-codec.js';

export interface HotContainerSpec extends ContainerLimits {
  image: string;
  env: string[];
  labels: Record<string, string>;
}

/** How a call on a hot container failed: it overran its time, or the container broke. */
export class HotCallError extends Error {
  override name = 'HotCallError';
  constructor(
    readonly kind: 'timeout' | 'broken',
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface HotAnswer {
  response: HotResponse;
  /** What the function wrote to stderr for this call, complete once resolved. */
  log: Promise<string>;
}

interface PendingCall {
  callId: string;
  resolve(answer: HotAnswer): void;
  reject(error: HotCallError): void;
  timer: NodeJS.Timeout;
}

/** How long stderr that trails a call's answer is still that call's, unless the next call starts first. */
export const LOG_SETTLE_MS = 100;
/** How long a container that closed its output gets to report its exit state. */
const EXIT_REPORT_MS = 2000;

function createOptions(spec: HotContainerSpec): Docker.ContainerCreateOptions {
  return {
    Image: spec.image,
    Env: spec.env,
    Labels: spec.labels,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    // No TTY: stdout and stderr arrive multiplexed, so the answer stays apart from the log.
    Tty: false,
    HostConfig: hardenedHostConfig(spec),
  };
}

/**
 * One running container of a hot function: takes one call at a time on stdin and reads the
 * answer from stdout. A container that exits, breaks its framing or overruns a call's time is
 * dead: `onDeath` tells its owner, and it is removed from the engine.
 */
export class HotContainer {
  /** Set by the owner; called once when the container dies on its own (not when stopped). */
  onDeath: () => void = () => {};
  private call: PendingCall | null = null;
  private dead = false;
  private removal: Promise<void> | null = null;
  private markRemoved: () => void = () => {};
  /** Resolves once the container is removed from the engine, however it ended. */
  readonly removed = new Promise<void>((resolve) => (this.markRemoved = resolve));
  private readonly decoder: ResponseDecoder;
  private readonly logs = new CallLogFramer(null, LOG_SETTLE_MS);
  /** Calls answered; until the first, the function may still be booting. */
  private answered = 0;

  private constructor(
    private readonly container: Docker.Container,
    private readonly stdin: Duplex,
    codec: HotCodec,
    private readonly memoryBytes: number,
  ) {
    this.decoder = codec.createDecoder();
  }

  /** Creates, attaches and starts a container; on failure nothing is left behind. */
  static async start(docker: Docker, spec: HotContainerSpec, codec: HotCodec): Promise<HotContainer> {
    let container: Docker.Container;
    try {
      container = await docker.createContainer(createOptions(spec));
    } catch (error) {
      throw engineError(`create a container of ${spec.image}`, error);
    }
    try {
      const stream = (await container.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as Duplex;
      const hot = new HotContainer(container, stream, codec, spec.memoryBytes);
      demuxAttach(stream, { stdout: (piece) => hot.onStdout(piece), stderr: (piece) => hot.onStderr(piece) });
      stream.on('end', () => hot.onExit());
      stream.on('close', () => hot.onExit());
      stream.on('error', () => hot.onExit());
      await container.start();
      return hot;
    } catch (error) {
      void container.remove({ force: true }).catch(() => {});
      throw engineError(`start a container of ${spec.image}`, error);
    }
  }

  get id(): string {
    return this.container.id;
  }

  get alive(): boolean {
    return !this.dead;
  }

  /**
   * Sends one request and waits for its answer, at most `timeoutMs`, plus `bootMs` on the
   * container's first call (the function's runtime starting up). Rejects with HotCallError.
   */
  send(callId: string, request: Buffer, timeoutMs: number, bootMs: number): Promise<HotAnswer> {
    if (this.dead || this.call)
      return Promise.reject(new HotCallError('broken', 'the function container is not available', ''));
    const limit = this.answered === 0 ? timeoutMs + bootMs : timeoutMs;
    return new Promise<HotAnswer>((resolve, reject) => {
      const timer = setTimeout(() => this.die('timeout', `the function did not answer within ${timeoutMs} ms`), limit);
      this.call = { callId, resolve, reject, timer };
      this.logs.open(callId);
      this.stdin.write(request);
    });
  }

  /** Kills and removes the container; a call under way fails. Resolves once it is gone. */
  stop(): Promise<void> {
    if (!this.dead) {
      this.dead = true;
      this.failCall('broken', 'the function container was stopped');
    }
    return this.remove();
  }

  private onStdout(chunk: Buffer): void {
    if (this.dead) return;
    let responses: HotResponse[];
    try {
      responses = this.decoder.push(chunk);
    } catch (error) {
      this.die('broken', (error as Error).message);
      return;
    }
    for (const response of responses) {
      const call = this.call;
      if (!call) {
        this.die('broken', 'the function wrote an answer outside of a call');
        return;
      }
      this.call = null;
      this.answered++;
      clearTimeout(call.timer);
      call.resolve({ response, log: this.logs.answered(call.callId) });
    }
  }

  private onStderr(chunk: Buffer): void {
    this.logs.push(chunk);
  }

  /** The output closed: the process ended. The call learns how, once the engine reports it. */
  private onExit(): void {
    if (this.dead) return;
    this.dead = true;
    this.onDeath();
    void exitMessage(this.container, this.memoryBytes, EXIT_REPORT_MS).then((message) => {
      this.failCall('broken', message);
      void this.remove();
    });
  }

  private die(kind: 'timeout' | 'broken', message: string): void {
    if (this.dead) return;
    this.dead = true;
    this.onDeath();
    this.failCall(kind, message);
    void this.remove();
  }

  private failCall(kind: 'timeout' | 'broken', message: string): void {
    const call = this.call;
    if (!call) return;
    this.call = null;
    clearTimeout(call.timer);
    call.reject(new HotCallError(kind, message, this.logs.closeNow(call.callId)));
  }

  private remove(): Promise<void> {
    this.removal ??= this.container
      .remove({ force: true })
      .catch(() => {})
      .then(() => this.markRemoved());
    this.stdin.destroy();
    this.logs.end();
    return this.removal;
  }
}
