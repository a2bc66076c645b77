import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { toRfc3339 } from '../../src/core/time.js';
import { DockerExecutor, ExecutorError } from '../docker-executor.js';
import type { FunctionExecutor, FunctionInvocation, FunctionResult } from '../../src/functions/function-executor.js';
import type { HotCodec } from './hot-codec.js';
import { HotCallError, HotContainer, type HotContainerSpec } from './hot-container.js';
import { httpCodec } from './hot-http-codec.js';
import { jsonCodec } from './hot-json-codec.js';
import { HotRoutePool, WaitTimeoutError } from './hot-route-pool.js';

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
  log?: Logger;
}

const DEFAULT_BOOT_ALLOWANCE_MS = 10_000;

const CODECS: Record<string, HotCodec> = { http: httpCodec, json: jsonCodec };

/** What makes containers of a route interchangeable: a change of any of it needs new ones. */
export function routeVersionOf(invocation: FunctionInvocation): string {
  const env = Object.entries(invocation.routeEnv).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const identity = [invocation.appName, invocation.path, invocation.image, invocation.format, invocation.memoryMb, env];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 24);
}

function failure(outcome: 'error' | 'timeout', message: string, stderr = ''): FunctionResult {
  return {
    outcome,
    status: outcome === 'timeout' ? 504 : 502,
    headers: {},
    body: Buffer.alloc(0),
    stderr,
    errorMessage: message,
  };
}

/**
 * Runs calls of `http` and `json` routes on hot containers that stay up between calls, one
 * HotRoutePool per route; a route whose version changed gets a new pool, the old one retires.
 */
export class HotFunctionPool implements FunctionExecutor {
  /** The current pool of each route (`app` + NUL + `path`). */
  private readonly routes = new Map<string, { version: string; pool: HotRoutePool }>();
  /** Every pool still holding containers or calls, retired ones included. */
  private readonly pools = new Set<HotRoutePool>();
  private readonly images: DockerExecutor;
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly options: HotFunctionPoolOptions,
  ) {
    this.images = new DockerExecutor(docker);
  }

  async invoke(invocation: FunctionInvocation): Promise<FunctionResult> {
    const codec = CODECS[invocation.format];
    if (!codec) throw new TypeError(`HotFunctionPool runs the http and json formats, not "${invocation.format}"`);
    if (this.closed) return failure('error', 'the function runner is shutting down');
    const pool = this.poolFor(invocation, codec);
    let container: HotContainer;
    try {
      container = await pool.acquire(invocation.timeoutMs);
    } catch (error) {
      if (error instanceof WaitTimeoutError) return failure('timeout', error.message);
      return failure('error', (error as Error).message);
    }
    const deadline = toRfc3339(Date.now() + invocation.timeoutMs)!;
    try {
      const { response, stderr } = await container.send(
        codec.encodeRequest(invocation, deadline),
        invocation.timeoutMs,
        this.options.bootAllowanceMs ?? DEFAULT_BOOT_ALLOWANCE_MS,
      );
      pool.release(container);
      return { outcome: 'success', status: response.status, headers: response.headers, body: response.body, stderr };
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
    return this.routes.get(`${appName}\0${path}`)?.pool.size ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.pools].map((pool) => pool.close('the function runner is shutting down')));
  }

  private poolFor(invocation: FunctionInvocation, codec: HotCodec): HotRoutePool {
    const routeKey = `${invocation.appName}\0${invocation.path}`;
    const version = routeVersionOf(invocation);
    const settings = {
      maxConcurrency: Math.max(1, invocation.maxConcurrency),
      idleTimeoutMs: invocation.idleTimeoutMs,
    };
    const current = this.routes.get(routeKey);
    if (current?.version === version) {
      current.pool.update(settings);
      return current.pool;
    }
    current?.pool.retire();
    const spec = this.specOf(invocation, version);
    const pool = new HotRoutePool(
      settings,
      () => this.startContainer(spec, codec),
      (empty) => this.forget(routeKey, empty),
    );
    this.routes.set(routeKey, { version, pool });
    this.pools.add(pool);
    return pool;
  }

  private async startContainer(spec: HotContainerSpec, codec: HotCodec): Promise<HotContainer> {
    try {
      await this.images.ensureImage(spec.image);
      return await HotContainer.start(this.docker, spec, codec);
    } catch (error) {
      const reason = error instanceof ExecutorError ? error.message : String(error);
      throw new Error(`could not start the function: ${reason}`);
    }
  }

  private forget(routeKey: string, pool: HotRoutePool): void {
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
