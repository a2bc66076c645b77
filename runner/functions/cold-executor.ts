import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { hardenedHostConfig, type DockerExecutor } from '../docker-executor.js';
import type {
  FunctionExecutor,
  FunctionInvocation,
  FunctionResult,
} from '../../src/functions/calls/function-executor.js';
import { callEnvOf } from '../../src/functions/calls/invocation.js';

export interface ColdExecutorOptions {
  network: string;
  pidsLimit: number;
  nanoCpus: number;
  /** Labels of the runner, so a dead runner's containers are found and removed. */
  labels: Record<string, string>;
  /** Most bytes of stderr kept. */
  maxLogBytes: number;
}

/** Collects a stream's bytes, keeping at most `limit`. */
class Collector extends Writable {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    if (this.size < this.limit) {
      const kept = chunk.subarray(0, this.limit - this.size);
      this.chunks.push(kept);
      this.size += kept.length;
    }
    done();
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function failed(status: number, errorMessage: string, stderr = ''): FunctionResult {
  return {
    outcome: status === 504 ? 'timeout' : 'error',
    status,
    headers: {},
    body: Buffer.alloc(0),
    stderr,
    errorMessage,
  };
}

const envList = (env: Record<string, string>) => Object.entries(env).map(([name, value]) => `${name}=${value}`);
/** How long the output streams get to drain after the container exited. */
const OUTPUT_DRAIN_MS = 2000;
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;

/**
 * The `default` format: one container per call. The request body is the container's stdin,
 * its stdout the response body, its stderr the call's log; `memory` is a hard limit (no swap).
 */
export class ColdExecutor implements FunctionExecutor {
  constructor(
    private readonly docker: Docker,
    private readonly images: DockerExecutor,
    private readonly options: ColdExecutorOptions,
  ) {}

  async invoke(invocation: FunctionInvocation): Promise<FunctionResult> {
    try {
      await this.images.ensureImage(invocation.image);
    } catch (error) {
      return failed(502, (error as Error).message);
    }
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(this.createOptions(invocation));
    } catch (error) {
      return failed(502, `Could not create the function's container: ${(error as Error).message}`);
    }
    try {
      return await this.runContainer(container, invocation);
    } catch (error) {
      return failed(502, `The function's container failed: ${(error as Error).message}`);
    } finally {
      this.images.removeLater(container);
    }
  }

  private async runContainer(container: Docker.Container, invocation: FunctionInvocation): Promise<FunctionResult> {
    const stdout = new Collector(MAX_STDOUT_BYTES);
    const stderr = new Collector(this.options.maxLogBytes);
    const stream = await container.attach({ stream: true, hijack: true, stdin: true, stdout: true, stderr: true });
    const ended = new Promise<void>((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
    container.modem.demuxStream(stream, stdout, stderr);
    await container.start();
    stream.end(invocation.body);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      void container.kill().catch(() => {});
    }, invocation.timeoutMs);
    let exit: { StatusCode: number };
    try {
      exit = (await container.wait()) as { StatusCode: number };
    } finally {
      clearTimeout(deadline);
    }
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, OUTPUT_DRAIN_MS))]);
    const log = stderr.bytes().toString();
    if (timedOut) return failed(504, `The function timed out after ${invocation.timeoutMs / 1000} s`, log);
    if (exit.StatusCode !== 0) {
      const oomKilled = Boolean((await container.inspect()).State.OOMKilled);
      const reason = oomKilled
        ? `ran out of memory (limit ${invocation.memoryMb} MiB)`
        : `exited with status ${exit.StatusCode}`;
      return failed(502, `The function ${reason}`, log);
    }
    return { outcome: 'success', status: 200, headers: {}, body: stdout.bytes(), stderr: log };
  }

  private createOptions(invocation: FunctionInvocation): Docker.ContainerCreateOptions {
    const memoryBytes = invocation.memoryMb * 1024 * 1024;
    return {
      Image: invocation.image,
      Env: envList({ ...invocation.routeEnv, ...callEnvOf(invocation) }),
      Labels: {
        ...this.options.labels,
        'ferrum.function': `${invocation.appName}${invocation.path}`,
        'ferrum.call': invocation.callId,
      },
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      OpenStdin: true,
      StdinOnce: true,
      Tty: false,
      HostConfig: hardenedHostConfig({
        network: this.options.network,
        memoryBytes,
        pidsLimit: this.options.pidsLimit,
        nanoCpus: this.options.nanoCpus,
      }),
    };
  }

  /** Waits until every container this executor started is removed. */
  async close(): Promise<void> {
    await this.images.settle();
  }
}
