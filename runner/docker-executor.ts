import path from 'node:path';
import type Docker from 'dockerode';
import tar from 'tar-fs';
import type { RegistryAuth } from '../src/worker/codes/registry-credentials.js';
import { TtyOutputDecoder } from './tasks/tty-output.js';

/** The limits every Ferrum container runs under. */
export interface ContainerLimits {
  network: string;
  memoryBytes: number;
  pidsLimit: number;
  nanoCpus: number;
}

/** Host settings of every container Ferrum starts: its limits, no swap beyond them, fewer privileges. */
export function hardenedHostConfig(limits: ContainerLimits): Docker.HostConfig {
  return {
    NetworkMode: limits.network,
    Memory: limits.memoryBytes,
    MemorySwap: limits.memoryBytes,
    PidsLimit: limits.pidsLimit,
    NanoCpus: limits.nanoCpus,
    Privileged: false,
    SecurityOpt: ['no-new-privileges'],
    CapDrop: ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SYS_CHROOT', 'SETFCAP'],
    AutoRemove: false,
  };
}

/** A failure of the engine or the image, with the message the task's `msg` should carry. */
export class ExecutorError extends Error {
  override name = 'ExecutorError';
}

export interface ContainerSpec extends ContainerLimits {
  image: string;
  /** Undefined: the image's own command. */
  cmd?: string[];
  env: string[];
  workingDir?: string;
  labels: Record<string, string>;
  /** A local folder copied to `taskDir` in the container before it starts. */
  filesDir: string;
  taskDir: string;
}

export interface ContainerResult {
  exitCode: number;
  oomKilled: boolean;
  /** Killed because it ran longer than its timeout. */
  timedOut: boolean;
}

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

export function engineError(action: string, error: unknown): ExecutorError {
  const message = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') {
    return new ExecutorError(`Docker engine unavailable (${action}): ${message}`);
  }
  return new ExecutorError(`Docker failed to ${action}: ${message}`);
}

/** How long an image seen on the engine is trusted to still be there without asking again. */
const IMAGE_SEEN_MS = 30_000;

/** What a task needs to know of an image it runs. */
export interface ImageInfo {
  /** The image's own command (CMD), to which a task's arguments are appended. */
  cmd: string[];
}

function imageInfoOf(inspected: Docker.ImageInspectInfo): ImageInfo {
  return { cmd: inspected.Config?.Cmd ?? [] };
}

/** Runs task containers through the Docker engine. */
export class DockerExecutor {
  private readonly imagesSeen = new Map<string, { until: number; info: ImageInfo }>();
  /** Removals of exited containers still under way; the task's end does not wait for them. */
  private readonly removals = new Set<Promise<void>>();

  constructor(private readonly docker: Docker) {}

  /** Pulls the image unless the engine has it; fails with a message naming the image. */
  async ensureImage(image: string, auth?: RegistryAuth): Promise<ImageInfo> {
    const seen = this.imagesSeen.get(image);
    if (seen && seen.until > Date.now()) return seen.info;
    try {
      return this.remember(image, await this.docker.getImage(image).inspect());
    } catch (error) {
      if (statusOf(error) !== 404) throw engineError(`inspect image ${image}`, error);
    }
    try {
      const stream = await this.docker.pull(image, auth ? { authconfig: auth } : {});
      const events = await new Promise<{ error?: string }[]>((resolve, reject) => {
        this.docker.modem.followProgress(stream, (error: Error | null, output: { error?: string }[]) =>
          error ? reject(error) : resolve(output),
        );
      });
      const failure = events.find((event) => event.error);
      if (failure) throw new Error(failure.error);
      return this.remember(image, await this.docker.getImage(image).inspect());
    } catch (error) {
      const message = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
      throw new ExecutorError(`Image ${image} is not available: ${message}`);
    }
  }

  private remember(image: string, inspected: Docker.ImageInspectInfo): ImageInfo {
    const info = imageInfoOf(inspected);
    this.imagesSeen.set(image, { until: Date.now() + IMAGE_SEEN_MS, info });
    return info;
  }

  /**
   * Creates the container, copies the task files in, streams its output (stdout and stderr
   * in the order written) to `onOutput`, and waits for the exit. `signal` kills it, and so
   * does the deadline `timeoutMs` after the start. The container is always removed, in the
   * background once it has exited (see settle()).
   */
  async run(
    spec: ContainerSpec,
    onOutput: (chunk: Buffer) => void,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ContainerResult> {
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(this.createOptions(spec));
    } catch (error) {
      throw engineError(`create a container of ${spec.image}`, error);
    }
    const kill = () => void container.kill().catch(() => {});
    let timedOut = false;
    let deadline: NodeJS.Timeout | undefined;
    try {
      const [output] = await Promise.all([
        container.attach({ stream: true, stdout: true, stderr: true }),
        container.putArchive(this.archiveOf(spec), { path: '/' }),
      ]);
      const ended = new Promise<void>((resolve) => {
        output.on('end', resolve);
        output.on('close', resolve);
        output.on('error', () => resolve());
      });
      const decoder = new TtyOutputDecoder();
      output.on('data', (chunk: Buffer) => onOutput(decoder.decode(chunk)));
      signal.addEventListener('abort', kill, { once: true });
      await container.start();
      deadline = setTimeout(() => {
        timedOut = true;
        kill();
      }, timeoutMs);
      if (signal.aborted) kill();
      const exit = (await container.wait()) as { StatusCode: number };
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2000))]);
      const rest = decoder.end();
      if (rest.length > 0) onOutput(rest);
      const oomKilled = exit.StatusCode !== 0 && Boolean((await container.inspect()).State.OOMKilled);
      return { exitCode: exit.StatusCode, oomKilled, timedOut };
    } catch (error) {
      if (error instanceof ExecutorError) throw error;
      throw engineError('run the task container', error);
    } finally {
      clearTimeout(deadline);
      signal.removeEventListener('abort', kill);
      this.removeLater(container);
    }
  }

  /** Removes the container in the background; `settle()` waits for every such removal. */
  removeLater(container: Docker.Container): void {
    const removal: Promise<void> = container
      .remove({ force: true })
      .catch(() => {})
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /** Waits until every container this executor ran (or was given to remove) is removed. */
  async settle(): Promise<void> {
    while (this.removals.size > 0) await Promise.all([...this.removals]);
  }

  private createOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
    return {
      Image: spec.image,
      Cmd: spec.cmd,
      Env: spec.env,
      WorkingDir: spec.workingDir,
      Labels: spec.labels,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      OpenStdin: false,
      HostConfig: hardenedHostConfig(spec),
    };
  }

  /** The task folder as a tar stream whose entries land under taskDir. */
  private archiveOf(spec: ContainerSpec): NodeJS.ReadableStream {
    // tar-fs's Pack is a streamx Readable, which dockerode pipes like any Node stream.
    const prefix = spec.taskDir.replace(/^\/+/, '');
    return tar.pack(spec.filesDir, {
      map: (header) => ({
        ...header,
        name: path.posix.join(prefix, header.name),
        uid: 0,
        gid: 0,
        uname: 'root',
        gname: 'root',
      }),
    }) as unknown as NodeJS.ReadableStream;
  }

  /** Containers carrying all of `labels` (label=value pairs). */
  async listLabelled(labels: string[]): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: labels } });
  }

  async remove(containerId: string): Promise<void> {
    await this.docker.getContainer(containerId).remove({ force: true });
  }
}
