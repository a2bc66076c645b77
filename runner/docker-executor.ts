import path from 'node:path';
import type Docker from 'dockerode';
import tar from 'tar-fs';
import { OutboundGuard } from '../src/core/outbound-guard.js';
import { namesImageById, type EngineImage } from '../src/worker/codes/images/private-images.js';
import type { RegistryAuth } from '../src/worker/codes/images/registry-credentials.js';
import { RegistryGuard } from '../src/worker/codes/images/registry-guard.js';
import { fitsInline, preludeOf, STAGING_DIR, type TaskFilesSource } from './tasks/task-folder.js';
import { TtyOutputDecoder } from './tasks/tty-output.js';

export type { TaskFilesSource } from './tasks/task-folder.js';

/** The limits every Ferrum container runs under. */
export interface ContainerLimits {
  network: string;
  memoryBytes: number;
  pidsLimit: number;
  nanoCpus: number;
  /**
   * Given: every capability is dropped and only these are given back (task containers).
   * Not given: the few risky ones are dropped (function containers).
   */
  capAdd?: string[];
  /** Open-file limit (ulimit nofile). */
  nofile?: number;
}

const DEFAULT_NOFILE = 1024;

/** Host settings of every container Ferrum starts: its limits, no swap beyond them, fewer privileges. */
export function hardenedHostConfig(limits: ContainerLimits): Docker.HostConfig {
  const nofile = limits.nofile ?? DEFAULT_NOFILE;
  return {
    NetworkMode: limits.network,
    Memory: limits.memoryBytes,
    MemorySwap: limits.memoryBytes,
    PidsLimit: limits.pidsLimit,
    NanoCpus: limits.nanoCpus,
    Ulimits: [{ Name: 'nofile', Soft: nofile, Hard: nofile }],
    Privileged: false,
    SecurityOpt: ['no-new-privileges'],
    CapDrop: limits.capAdd ? ['ALL'] : ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SYS_CHROOT', 'SETFCAP'],
    CapAdd: limits.capAdd && limits.capAdd.length > 0 ? limits.capAdd : undefined,
    AutoRemove: false,
    // Output is read through attach only: the engine keeps no log file of it (a chatty
    // container cannot fill the engine's disk, and each line costs the engine less).
    LogConfig: { Type: 'none', Config: {} },
  };
}

/**
 * How a task container's writable space is bounded: a storage quota on its writable layer
 * where the engine's storage driver supports one, else a tmpfs of that size for the task
 * folder (files are staged beside it and copied in by a small shell prelude at start).
 */
export type DiskLimitMode = 'quota' | 'tmpfs';

export function diskLimitModeOf(info: { Driver?: string; DriverStatus?: string[][] }): DiskLimitMode {
  const driver = info.Driver ?? '';
  const backing = (info.DriverStatus ?? []).find(([name]) => name === 'Backing Filesystem')?.[1] ?? '';
  if (driver === 'overlay2' && backing === 'xfs') return 'quota';
  if (driver === 'btrfs' || driver === 'zfs' || driver === 'devicemapper') return 'quota';
  return 'tmpfs';
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
  /** What the task folder `taskDir` holds when the container starts. */
  files: TaskFilesSource;
  taskDir: string;
  /** Writable space in MiB (see DiskLimitMode); 0: unbounded. */
  diskMb?: number;
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
  /** The engine's id of the image ("sha256:…"), whatever reference named it. */
  id: string;
  /** The image's own command (CMD), to which a task's arguments are appended. */
  cmd: string[];
  /** The image's entrypoint (ENTRYPOINT), which the tmpfs task folder's prelude runs in the end. */
  entrypoint: string[];
}

function imageInfoOf(inspected: Docker.ImageInspectInfo): ImageInfo {
  const entrypoint = inspected.Config?.Entrypoint ?? [];
  return {
    id: inspected.Id,
    cmd: inspected.Config?.Cmd ?? [],
    entrypoint: typeof entrypoint === 'string' ? [entrypoint] : entrypoint,
  };
}

/**
 * Registry answers a tenant may read. Anything else (a refused or reset connection, a TLS or
 * HTTP mismatch, a timeout) says what listens at the registry's address and port, so it is
 * reported as one message whatever the cause.
 */
const REGISTRY_ANSWERS =
  /pull access denied|manifest unknown|manifest for \S+ not found|unauthorized|denied|toomanyrequests|invalid reference format/i;

function pullFailure(message: string): string {
  return REGISTRY_ANSWERS.test(message) && !/dial |tcp |connect/i.test(message)
    ? message
    : 'its registry could not be reached or did not answer as a registry';
}

export interface EnsureOptions {
  /** Pull even when the engine has the image. */
  pull?: boolean;
  /** The operator's image (a stack's): its registry is not checked against the outbound guard. */
  operator?: boolean;
  /** Called just before a pull starts (the task shows `preparing` while its image downloads). */
  beforePull?: () => Promise<void>;
}

/** Runs task containers through the Docker engine. */
export class DockerExecutor {
  private readonly imagesSeen = new Map<string, { until: number; info: ImageInfo }>();
  private diskMode: Promise<DiskLimitMode> | null = null;
  /** Removals of exited containers still under way; the task's end does not wait for them. */
  private readonly removals = new Set<Promise<void>>();

  constructor(
    private readonly docker: Docker,
    private readonly registries: RegistryGuard = new RegistryGuard(new OutboundGuard([])),
  ) {}

  /** The image the engine holds under `image` (a name, a tag, an id, a prefix of one, a digest); null when none. */
  async imageOnEngine(image: string): Promise<EngineImage | null> {
    try {
      const { Id: id } = await this.docker.getImage(image).inspect();
      return { id, byId: namesImageById(image, id) };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw engineError(`inspect image ${image}`, error);
    }
  }

  /**
   * Pulls the image unless the engine has it (or always, with `pull`); answers what the image
   * says of itself; fails with a message naming the image.
   */
  async ensureImage(image: string, auth?: RegistryAuth, options: EnsureOptions = {}): Promise<ImageInfo> {
    if (!options.pull) {
      try {
        return await this.imageInfo(image);
      } catch (error) {
        if (statusOf(error) !== 404) throw engineError(`inspect image ${image}`, error);
      }
    }
    const refusal = options.operator ? null : await this.registries.refusalOf(image);
    if (refusal) throw new ExecutorError(`Image ${image} is not available: ${refusal}`);
    await options.beforePull?.();
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
      throw new ExecutorError(`Image ${image} is not available: ${pullFailure(message)}`);
    }
  }

  /** What the engine's image says of itself, as inspected at most IMAGE_SEEN_MS ago. */
  private async imageInfo(image: string): Promise<ImageInfo> {
    const seen = this.imagesSeen.get(image);
    if (seen && seen.until > Date.now()) return seen.info;
    return this.remember(image, await this.docker.getImage(image).inspect());
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
    let staged = false;
    try {
      const options = await this.createOptions(spec);
      staged = options.HostConfig?.Tmpfs !== undefined;
      container = await this.createContainer(options, spec);
    } catch (error) {
      if (error instanceof ExecutorError) throw error;
      throw engineError(`create a container of ${spec.image}`, error);
    }
    const kill = () => void container.kill().catch(() => {});
    let timedOut = false;
    let deadline: NodeJS.Timeout | undefined;
    try {
      const files = spec.files;
      const [output] = await Promise.all([
        container.attach({ stream: true, stdout: true, stderr: true }),
        'dir' in files
          ? container.putArchive(this.archiveOf(files.dir, staged ? STAGING_DIR : spec.taskDir), { path: '/' })
          : undefined,
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

  /** The engine's way of bounding writable space, asked once. */
  diskLimitMode(): Promise<DiskLimitMode> {
    this.diskMode ??= this.docker.info().then(
      (info: { Driver?: string; DriverStatus?: string[][] }) => diskLimitModeOf(info),
      () => 'tmpfs' as const,
    );
    return this.diskMode;
  }

  /** Creates the container; a quota the engine turns down after all falls back to the tmpfs task folder. */
  private async createContainer(
    options: Docker.ContainerCreateOptions,
    spec: ContainerSpec,
  ): Promise<Docker.Container> {
    try {
      return await this.docker.createContainer(options);
    } catch (error) {
      if (!options.HostConfig?.StorageOpt || !/storage-opt|quota/i.test(engineError('', error).message)) throw error;
      this.diskMode = Promise.resolve('tmpfs');
      return this.docker.createContainer(await this.createOptions(spec));
    }
  }

  private async createOptions(spec: ContainerSpec): Promise<Docker.ContainerCreateOptions> {
    const options: Docker.ContainerCreateOptions = {
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
    const diskMb = spec.diskMb ?? 0;
    if ('content' in spec.files && !(await this.takesContent(diskMb, spec.files.content)))
      throw new ExecutorError('Runner error: these task files cannot be given as content');
    if (!(await this.writesTaskFolder(diskMb))) {
      if (diskMb > 0) options.HostConfig!.StorageOpt = { size: `${diskMb}M` };
      return options;
    }
    options.HostConfig!.Tmpfs = { [spec.taskDir]: `rw,exec,nosuid,nodev,size=${diskMb}m` };
    // The engine cannot copy files into a tmpfs before the start: a prelude does, then runs
    // the image's own entrypoint and command (or the task's command) as they were.
    // Usually remembered from ensureImage() just before: no engine round trip per task.
    const image = await this.imageInfo(spec.image);
    const prelude = preludeOf(spec.files);
    options.Entrypoint = ['/bin/sh', '-c', prelude.script, spec.taskDir];
    options.Env = [...spec.env, ...prelude.env];
    options.Cmd = [...image.entrypoint, ...(spec.cmd ?? image.cmd)];
    return options;
  }

  /** Whether a task with `diskMb` of writable space gets a tmpfs task folder that a prelude in the container fills. */
  private async writesTaskFolder(diskMb: number): Promise<boolean> {
    return diskMb > 0 && (await this.diskLimitMode()) === 'tmpfs';
  }

  /** Whether a task with `diskMb` of writable space may be given these files as content (see TaskFilesSource). */
  async takesContent(diskMb: number, content: Record<string, string>): Promise<boolean> {
    return fitsInline(content) && (await this.writesTaskFolder(diskMb));
  }

  /** The local folder `filesDir` as a tar stream whose entries land under `dir`. */
  private archiveOf(filesDir: string, dir: string): NodeJS.ReadableStream {
    // tar-fs's Pack is a streamx Readable, which dockerode pipes like any Node stream.
    const prefix = dir.replace(/^\/+/, '');
    return tar.pack(filesDir, {
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
