import type { RegistryGuard } from '../../src/worker/codes/images/registry-guard.js';
import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { DockerExecutor, ExecutorError } from '../docker-executor.js';
import type {
  FunctionExecutor,
  FunctionInvocation,
  FunctionResult,
} from '../../src/functions/calls/function-executor.js';
import { deadlineText } from './call-deadline.js';
import type { CallLogWatch } from './call-log-framer.js';
import type { HotCodec } from './hot-codec.js';
import { HotCallError, HotContainer, type HotContainerSpec } from './hot-container.js';
import { httpCodec } from './hot-http-codec.js';
import { jsonCodec } from './hot-json-codec.js';
import { HotRoutePool, RouteBusyError, type StartRoom } from './hot-route-pool.js';
import type { RouteGone } from '../../src/functions/routes/route-notices.js';
import { streamRequestOf } from './stream-codec.js';
import { StreamContainer } from './stream-container.js';

/** Labels of hot containers, beside the runner's own (which the orphan sweep goes by). */
export const HOT_LABELS = {
  /** `app/path` of the route. */
  function: 'ferrum.function',
  /** The route version the container was started for. */
  version: 'ferrum.function.version',
} as const;

export interface HotFunctionPoolOptions {
  /** The runner's identity labels, so a restarted runner removes the containers it left. */
  labels: Record<string, string>;
  network: string;
  pidsLimit: number;
  milliCpus: number;
  /** Allowed on top of the timeout for a new container's first call, while its runtime boots. */
  bootAllowanceMs?: number;
  /** Host folder (shared with the engine) for the sockets of `http-stream` containers. */
  socketRoot: string;
  /** Longest a call waits for a busy route's container before it is refused (503). */
  busyWaitMs: number;
  /** Most calls of one route waiting for a container at once; more are refused at once (503). */
  maxWaiting: number;
  /** Which registries an image may be pulled from (internal addresses refused by default). */
  registries?: RegistryGuard;
  /** Most hot containers the routes of one project keep here at once; none: no bound. */
  maxProjectContainers?: number;
  /** Longest an idle container is kept, whatever its route asks; none: the route's idle timeout. */
  maxIdleMs?: number;
  /** Told of `http-stream` call logs a bound ended rather than the container's output. */
  logWatch?: CallLogWatch;
  log?: Logger;
}

const DEFAULT_BOOT_ALLOWANCE_MS = 10_000;
/** What a refused caller is told to wait before trying again, in seconds. */
const RETRY_AFTER_SECONDS = 1;

type AnyHotContainer = HotContainer | StreamContainer;

const CODECS: Record<string, HotCodec> = { http: httpCodec, json: jsonCodec };

type RouteIdentity = Pick<FunctionInvocation, 'appName' | 'path' | 'image' | 'format' | 'memoryMb'>;

/** A route's key in HotFunctionPool's map (`app` NUL `path`) and its version, made once per cached route. */
interface RouteVersion {
  identity: RouteIdentity;
  /** Built once: a call's look-up builds no string (and the map finds this one's hash already made). */
  key: string;
  version: string;
}

/** By the route environment object: calls of one cached route share it (see routeEnvOf). */
const versions = new WeakMap<Record<string, string>, RouteVersion>();

/** Compared field by field: it runs twice per call, and a string of them would be built each time. */
function sameIdentity(a: RouteIdentity, b: RouteIdentity): boolean {
  return (
    a.appName === b.appName &&
    a.path === b.path &&
    a.image === b.image &&
    a.format === b.format &&
    a.memoryMb === b.memoryMb
  );
}

function routeKeyOf(appName: string, path: string): string {
  return `${appName}\0${path}`;
}

/** The route's key, and its version: what makes its containers interchangeable (a change of any of it needs new ones). */
export function routeVersionOf(invocation: FunctionInvocation): RouteVersion {
  const known = versions.get(invocation.routeEnv);
  if (known && sameIdentity(known.identity, invocation)) return known;
  const { appName, path, image, format, memoryMb } = invocation;
  const made = {
    identity: { appName, path, image, format, memoryMb },
    key: routeKeyOf(appName, path),
    version: versionOf(invocation),
  };
  versions.set(invocation.routeEnv, made);
  return made;
}

function versionOf(invocation: FunctionInvocation): string {
  const env = Object.entries(invocation.routeEnv).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const identity = [invocation.appName, invocation.path, invocation.image, invocation.format, invocation.memoryMb, env];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 24);
}

function failure(outcome: 'error' | 'timeout', message: string, stderr = '', status?: number): FunctionResult {
  return {
    outcome,
    status: status ?? (outcome === 'timeout' ? 504 : 502),
    headers: status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {},
    body: Buffer.alloc(0),
    stderr,
    errorMessage: message,
  };
}

/**
 * Runs calls of `http`, `json` and `http-stream` routes on hot containers that stay up between
 * calls, one HotRoutePool per route; a route whose version changed gets a new pool, the old one
 * retires. A route whose containers are all busy makes calls wait a bounded time, then 503.
 */
export class HotFunctionPool implements FunctionExecutor {
  /** The current pool of each route (`app` + NUL + `path`). */
  private readonly routes = new Map<string, { version: string; pool: HotRoutePool<AnyHotContainer> }>();
  /** Every pool still holding containers or calls, retired ones included, with its route's project. */
  private readonly pools = new Map<HotRoutePool<AnyHotContainer>, string>();
  private readonly images: DockerExecutor;
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly options: HotFunctionPoolOptions,
  ) {
    this.images = new DockerExecutor(docker, options.registries);
  }

  async invoke(invocation: FunctionInvocation): Promise<FunctionResult> {
    const codec = CODECS[invocation.format];
    if (!codec && invocation.format !== 'http-stream')
      throw new TypeError(`HotFunctionPool runs the http, json and http-stream formats, not "${invocation.format}"`);
    if (this.closed) return failure('error', 'the function runner is shutting down');
    const pool = this.poolFor(invocation, codec);
    // An idle container takes no await (a hot route's calls mostly find one).
    let container = pool.takeIdleNow();
    try {
      container ??= await pool.acquire(Math.min(invocation.timeoutMs, this.options.busyWaitMs));
    } catch (error) {
      if (error instanceof RouteBusyError) return failure('error', error.message, '', 503);
      return failure('error', (error as Error).message);
    }
    return this.call(pool, container, invocation, codec);
  }

  /** Whether a call of this route would find an idle container now (it may still lose it to another). */
  /**
   * Whether a call of this route may run here without the queue: the route's pool (of the
   * same route version) has an idle container, or fewer calls wait than it has containers, so
   * one comes free within about one call's time. Otherwise the call goes through the queue.
   */
  acceptsHere(invocation: FunctionInvocation): boolean {
    const { key, version } = routeVersionOf(invocation);
    const current = this.routes.get(key);
    if (current === undefined || current.version !== version) return false;
    const { pool } = current;
    return pool.idleCount > 0 || pool.waitingCount < pool.size;
  }

  private async call(
    pool: HotRoutePool<AnyHotContainer>,
    container: AnyHotContainer,
    invocation: FunctionInvocation,
    codec: HotCodec | undefined,
  ): Promise<FunctionResult> {
    const deadline = deadlineText(Date.now() + invocation.timeoutMs);
    try {
      const { response, log } =
        container instanceof StreamContainer
          ? await container.send(streamRequestOf(invocation, deadline), invocation.timeoutMs)
          : await container.send(
              invocation.callId,
              codec!.encodeRequest(invocation, deadline),
              invocation.timeoutMs,
              this.options.bootAllowanceMs ?? DEFAULT_BOOT_ALLOWANCE_MS,
            );
      pool.release(container);
      const { status, headers, body } = response;
      return { outcome: 'success', status, headers, body, stderr: '', laterLog: log };
    } catch (error) {
      if (!(error instanceof HotCallError)) throw error;
      this.options.log?.info(
        { app: invocation.appName, path: invocation.path, container: container.id, reason: error.message },
        'replacing a hot function container',
      );
      return failure(error.kind === 'timeout' ? 'timeout' : 'error', error.message, error.stderr);
    }
  }

  /** How many containers (running or starting) the route's current version has. */
  containerCount(appName: string, path: string): number {
    return this.routes.get(routeKeyOf(appName, path))?.pool.size ?? 0;
  }

  /** The containers of a route serving a call now. */
  busyCount(appName: string, path: string): number {
    return this.routes.get(routeKeyOf(appName, path))?.pool.busyCount ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.pools.keys()].map((pool) => pool.close('the function runner is shutting down')));
  }

  private poolFor(invocation: FunctionInvocation, codec: HotCodec | undefined): HotRoutePool<AnyHotContainer> {
    const { key: routeKey, version } = routeVersionOf(invocation);
    const settings = {
      maxConcurrency: Math.max(1, invocation.maxConcurrency),
      idleTimeoutMs: Math.min(invocation.idleTimeoutMs, this.options.maxIdleMs ?? Infinity),
      maxWaiting: this.options.maxWaiting,
    };
    const current = this.routes.get(routeKey);
    if (current?.version === version) {
      current.pool.update(settings);
      return current.pool;
    }
    current?.pool.retire();
    const spec = this.specOf(invocation, version);
    const project = invocation.projectId;
    const pool: HotRoutePool<AnyHotContainer> = new HotRoutePool<AnyHotContainer>(
      settings,
      () => this.startContainer(spec, codec),
      (empty) => this.forget(routeKey, empty),
      () => this.roomFor(project, pool),
      () => this.retryWaiting(project),
    );
    this.routes.set(routeKey, { version, pool });
    this.pools.set(pool, project);
    return pool;
  }

  /**
   * Whether the project may start one more container here: while the engine holds fewer than its
   * bound of them (running, starting, or not yet removed: decided and counted in one step, so
   * racing calls cannot pass it); else once a removal under way ends, or an idle container of
   * another of its routes is stopped to make room ('wait'); else why not.
   */
  private roomFor(project: string, starting: HotRoutePool<AnyHotContainer>): StartRoom {
    const most = this.options.maxProjectContainers;
    if (most === undefined) return null;
    const own = this.poolsOf(project);
    if (own.reduce((count, pool) => count + pool.held, 0) < most) return null;
    if (own.some((pool) => pool.removing) || own.some((pool) => pool !== starting && pool.stopIdle())) return 'wait';
    return {
      refused: `the project's ${most} hot containers on this runner are all busy (the most one project may keep)`,
    };
  }

  /** A container of the project is gone: its pools with calls waiting may start one now. */
  private retryWaiting(project: string): void {
    for (const pool of this.poolsOf(project)) if (pool.waitingCount > 0) pool.retryWaiting();
  }

  private poolsOf(project: string): HotRoutePool<AnyHotContainer>[] {
    return [...this.pools].filter(([, owner]) => owner === project).map(([pool]) => pool);
  }

  /** Stops the containers of a deleted route, of every route of an app, or of a project. */
  retireRoute(gone: RouteGone): void {
    for (const [routeKey, { pool }] of this.routes) {
      const [app, path] = routeKey.split('\0');
      const matches =
        'project' in gone
          ? this.pools.get(pool) === gone.project
          : app === gone.app && (gone.path === undefined || path === gone.path);
      if (!matches) continue;
      this.routes.delete(routeKey);
      pool.retire();
    }
  }

  private async startContainer(spec: HotContainerSpec, codec: HotCodec | undefined): Promise<AnyHotContainer> {
    try {
      await this.images.ensureImage(spec.image);
      if (!codec) {
        const { socketRoot, bootAllowanceMs = DEFAULT_BOOT_ALLOWANCE_MS, logWatch } = this.options;
        return await StreamContainer.start(this.docker, { ...spec, socketRoot, bootMs: bootAllowanceMs, logWatch });
      }
      return await HotContainer.start(this.docker, spec, codec);
    } catch (error) {
      const reason = error instanceof ExecutorError ? error.message : String(error);
      throw new Error(`could not start the function: ${reason}`);
    }
  }

  private forget(routeKey: string, pool: HotRoutePool<AnyHotContainer>): void {
    this.pools.delete(pool);
    if (this.routes.get(routeKey)?.pool === pool) this.routes.delete(routeKey);
  }

  private specOf(invocation: FunctionInvocation, version: string): HotContainerSpec {
    return {
      image: invocation.image,
      env: Object.entries(invocation.routeEnv).map(([name, value]) => `${name}=${value}`),
      labels: {
        ...this.options.labels,
        [HOT_LABELS.function]: `${invocation.appName}${invocation.path}`,
        [HOT_LABELS.version]: version,
      },
      network: this.options.network,
      memoryBytes: invocation.memoryMb * 1024 * 1024,
      pidsLimit: this.options.pidsLimit,
      nanoCpus: this.options.milliCpus * 1_000_000,
    };
  }
}
