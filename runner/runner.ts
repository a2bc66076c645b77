import { OutboundGuard } from '../src/core/outbound-guard.js';
import { RegistryGuard } from '../src/worker/codes/images/registry-guard.js';
import type { RedisClient } from '../src/core/redis.js';
import os from 'node:os';
import Docker from 'dockerode';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config } from '../src/core/config.js';
import type { WorkerServices } from '../src/worker/services.js';
import { newObjectId } from '../src/core/ids.js';
import type { EventBus } from '../src/core/bus.js';
import { FailureLog } from '../src/core/failure-log.js';
import { giveUpAfter, sleep } from '../src/core/time.js';
import type { FunctionStores } from '../src/functions/services.js';
import type { RunnerInstance } from '../src/worker/clusters/runners/runner-registry.js';
import type { Task } from '../src/worker/types.js';
import type { RunnerBackend } from './backend/backend.js';
import { DirectBackend } from './backend/direct-backend.js';
import { GatewayBackend, gatewayGrantOf, type GatewayAccess } from './backend/gateway-backend.js';
import { ColdExecutor } from './functions/cold-executor.js';
import { DockerExecutor } from './docker-executor.js';
import { HotFunctionPool } from './functions/hot-function-pool.js';
import { CallLogMetrics } from './functions/call-log-metrics.js';
import { FunctionImageGate } from './functions/image-gate.js';
import type { FunctionExecutor } from '../src/functions/calls/function-executor.js';
import { FunctionWorker } from './functions/function-worker.js';
import { RunnerMetrics } from './metrics.js';
import { openRunnerContext } from './runner-context.js';
import { LABELS, removeOrphanContainers } from './tasks/orphans.js';
import { TaskRun, type RunnerIdentity } from './tasks/task-run.js';
import { VERSION } from '../src/core/version.js';
import { openRunnerFeatures } from './runner-features.js';

/** After the drain bound, how long stopped containers get to report before we give up. */
const FORCED_STOP_MS = 15000;
/** How long one shutdown step that needs Redis (or the API) may take before it is given up. */
const STOP_STEP_MS = 2000;

/**
 * The runner daemon: takes tasks of one cluster (from Redis itself, or through the runner API
 * of a controller), runs each in a container, heartbeats as an instance of the cluster, obeys
 * cancels, and drains on stop.
 */
export class Runner {
  readonly id: string;
  private readonly runs = new Map<string, TaskRun>();
  private readonly identity: RunnerIdentity;
  private readonly executor: DockerExecutor;
  private readonly createdAt = Date.now();
  private taking = false;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private retiring = false;
  private readonly stopped: Promise<boolean>;
  private markStopped: (cleanly: boolean) => void = () => {};
  private readonly metrics: RunnerMetrics;
  private readonly functions: FunctionWorker | null;
  private readonly heartbeatHealth: FailureLog;
  private readonly sweepHealth: FailureLog;

  private constructor(
    private readonly config: Config,
    private readonly backend: RunnerBackend,
    private readonly closeConnections: () => Promise<void> | void,
    readonly log: Logger,
    docker: Docker,
    registry: Registry,
    functions: ((identity: RunnerIdentity, executor: DockerExecutor) => FunctionWorker) | null,
  ) {
    this.id = config.runner.instanceId ?? newObjectId();
    this.stopped = new Promise((resolve) => (this.markStopped = resolve));
    this.metrics = new RunnerMetrics(registry, config.runner.cluster, config.runner.slots, () => this.runs.size);
    this.executor = new DockerExecutor(docker, registryGuardOf(config));
    this.identity = {
      id: this.id,
      labels: {
        [LABELS.managed]: 'true',
        [LABELS.store]: backend.storeId,
        [LABELS.runner]: this.id,
        [LABELS.cluster]: config.runner.cluster,
      },
    };
    this.functions = functions?.(this.identity, this.executor) ?? null;
    this.heartbeatHealth = new FailureLog(this.log, 'runner heartbeat');
    this.sweepHealth = new FailureLog(this.log, 'orphan container sweep');
  }

  /**
   * A runner against the Redis of `redisUrl` (direct mode). `registry`: where the runner's
   * metrics go (the controller's, in the all-in-one process); `hotFunctions`: the executor of
   * the hot function formats (http, json); a HotFunctionPool on `docker` by default.
   */
  static async start(
    config: Config,
    redisUrl: string,
    log: Logger,
    docker = new Docker(),
    registry = new Registry(),
    hotFunctions?: FunctionExecutor,
  ): Promise<Runner> {
    const runnerId = config.runner.instanceId ?? newObjectId();
    const runnerConfig = { ...config, runner: { ...config.runner, instanceId: runnerId } };
    const runnerLog = log.child({ component: 'runner' });
    const opened = openRunnerContext(runnerConfig, redisUrl, registry, runnerLog);
    const { ctx } = opened;
    const features = await openRunnerFeatures(ctx, runnerId, runnerLog).catch(async (error: unknown) => {
      await opened.close();
      throw error;
    });
    const closeConnections = async () => {
      await features.close();
      await opened.close();
    };
    const backend = new DirectBackend(runnerConfig, redisUrl, ctx, runnerId, runnerLog);
    const functions = (identity: RunnerIdentity, executor: DockerExecutor) =>
      functionWorkerOf(runnerConfig, identity, executor, {
        docker,
        stores: ctx.functions,
        bus: ctx.bus,
        connection: ctx.functionCallConnection,
        isAlive: (runner) => ctx.worker.runners.isAlive(config.runner.cluster, runner),
        hotFunctions,
        worker: ctx.worker,
        registry,
        log: runnerLog.child({ component: 'functions' }),
      });
    const runner = new Runner(runnerConfig, backend, closeConnections, runnerLog, docker, registry, functions);
    try {
      await runner.begin();
    } catch (error) {
      await closeConnections();
      throw error;
    }
    return runner;
  }

  /** A runner that reaches the installation only through its runner API, with a cluster runner token (gateway mode). */
  static async startGateway(
    config: Config,
    access: GatewayAccess,
    log: Logger,
    docker = new Docker(),
    registry = new Registry(),
  ): Promise<Runner> {
    const runnerLog = log.child({ component: 'runner', mode: 'gateway' });
    const grant = await gatewayGrantOf(access);
    const runnerId = grant.instance_id ?? config.runner.instanceId ?? newObjectId();
    // The token names the cluster; a runner configured for another one is refused at its first call.
    const cluster = config.runner.clusterSet ? config.runner.cluster : grant.cluster_id;
    const runnerConfig = { ...config, runner: { ...config.runner, cluster, instanceId: runnerId } };
    const backend = new GatewayBackend(runnerConfig, access, runnerId, runnerLog);
    const runner = new Runner(runnerConfig, backend, () => {}, runnerLog, docker, registry, null);
    await runner.begin();
    return runner;
  }

  get cluster(): string {
    return this.config.runner.cluster;
  }

  get mode(): RunnerBackend['mode'] {
    return this.backend.mode;
  }

  /** Function calls this process may hand over without the queue (the all-in-one server); null in gateway mode. */
  get localFunctions(): FunctionWorker | null {
    return this.functions;
  }

  private async begin(): Promise<void> {
    const { runner: settings } = this.config;
    await this.heartbeat(true);
    await this.sweepOrphans();
    this.taking = true;
    await this.backend.startTaking({
      run: (task) => this.process(task),
      cancel: (taskId) => this.runs.get(taskId)?.stop('cancel'),
      refused: () => this.refused(),
      reregister: () => this.heartbeat(),
    });
    await this.functions?.start();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), settings.heartbeatMs);
    this.sweepTimer = setInterval(() => void this.sweepOrphans(), settings.stalledCheckMs);
    this.log.info(
      { id: this.id, cluster: settings.cluster, slots: settings.slots, mode: this.backend.mode },
      'runner started',
    );
    if (settings.network === 'host') {
      this.log.warn(
        "FERRUM_RUNNER_NETWORK=host: task and function containers share this machine's network, loopback services included",
      );
    }
  }

  private async process(task: Task): Promise<void> {
    const run = new TaskRun(
      {
        config: this.config,
        backend: this.backend.tasks,
        executor: this.executor,
        runner: this.identity,
        log: this.log,
        metrics: this.metrics,
      },
      task,
    );
    this.runs.set(task.id, run);
    void this.heartbeat();
    try {
      await run.execute();
    } finally {
      this.runs.delete(task.id);
      void this.heartbeat();
    }
  }

  private instance(): RunnerInstance {
    return {
      instance_id: this.id,
      cluster: this.cluster,
      hostname: os.hostname(),
      slots: this.config.runner.slots,
      busy: this.runs.size,
      tasks: [...this.runs.keys()],
      version: VERSION,
      created_at: this.createdAt,
      updated_at: Date.now(),
      expires_at: 0,
    };
  }

  /** `first`: the registration at start, which must succeed (a bad token stops the runner there). */
  private async heartbeat(first = false): Promise<void> {
    if (!first && !this.heartbeatTimer && this.stopping) return;
    try {
      const answer = await this.backend.heartbeat(
        this.instance(),
        [...this.runs.values()].map((run) => run.task),
      );
      this.heartbeatHealth.succeeded();
      for (const taskId of answer.cancelled) this.runs.get(taskId)?.stop('cancel');
      if (answer.retire) this.retire();
    } catch (error) {
      if (first) throw error;
      this.heartbeatHealth.failed(error);
      if ((error as { refused?: boolean }).refused) this.refused();
    }
  }

  /** The installation refused this runner for good (its token was revoked): it stops. */
  private refused(): void {
    if (this.stopping) return;
    this.log.error({ id: this.id }, 'the runner API refused this runner: stopping');
    this.stop().catch((error: unknown) => this.log.error({ err: error }, 'refused runner failed to stop cleanly'));
  }

  /** An instance set to KILL takes no more tasks, finishes the running ones (however long), then stops. */
  private retire(): void {
    if (this.stopping || !this.taking) return;
    this.log.info(
      { id: this.id, running: this.runs.size },
      'instance retired: finishing the running tasks, taking no more',
    );
    this.retiring = true;
    this.stop().catch((error: unknown) => this.log.error({ err: error }, 'retired runner failed to stop cleanly'));
  }

  /** Resolves once the runner has stopped (true: cleanly), whether by stop() or because its instance was retired. */
  whenStopped(): Promise<boolean> {
    return this.stopped;
  }

  private async sweepOrphans(): Promise<void> {
    try {
      await removeOrphanContainers(this.executor, this.backend, this.backend.storeId, this.id, this.log);
      this.sweepHealth.succeeded();
    } catch (error) {
      this.sweepHealth.failed(error);
    }
  }

  /** Drains: takes no new task, lets running ones finish for up to drainMs, then stops them. */
  stop(): Promise<void> {
    this.stopping ??= this.drain().then(
      () => this.markStopped(true),
      (error: unknown) => {
        this.markStopped(false);
        throw error;
      },
    );
    return this.stopping;
  }

  /** Heartbeats go on while draining: containers of a runner that heartbeats are not orphans. */
  private async drain(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const functionsStopped = this.functions
      ? giveUpAfter(
          this.config.runner.drainMs + STOP_STEP_MS,
          'function calls',
          this.functions.stop(this.config.runner.drainMs),
          this.log,
        )
      : undefined;
    if (this.taking) {
      this.taking = false;
      const closed = this.backend.stopTaking();
      // A retired instance is never cut short: its tasks run to their own timeout.
      const bound = this.retiring
        ? new Promise<boolean>(() => {})
        : sleep(this.config.runner.drainMs).then(() => false);
      const drained = await Promise.race([closed.then(() => true), bound]);
      if (!drained && this.runs.size > 0) {
        this.log.warn({ tasks: [...this.runs.keys()] }, 'drain time is up: stopping the remaining tasks');
        for (const run of this.runs.values()) run.stop('shutdown');
        await Promise.race([closed, sleep(FORCED_STOP_MS)]);
      } else if (!drained) {
        // No task left, yet the queue does not close: RedisClient (or the API) is unreachable.
        await giveUpAfter(STOP_STEP_MS, 'the task queue to close', closed, this.log);
      }
    }
    await functionsStopped;
    await this.executor.settle();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    const leaving = async () => {
      await this.backend.deregister(this.instance()).catch(() => {});
      await this.backend.close();
      await this.closeConnections();
    };
    await giveUpAfter(STOP_STEP_MS, 'deregistering the runner', leaving(), this.log);
    this.log.info({ id: this.id }, 'runner stopped');
  }
}

/** The registries the engine may pull tenants' images from: FERRUM_OUTBOUND_ALLOW opens internal ones. */
function registryGuardOf(config: Config): RegistryGuard {
  return new RegistryGuard(new OutboundGuard(config.outboundAllow));
}

interface FunctionWorkerDeps {
  docker: Docker;
  stores: FunctionStores;
  bus: EventBus;
  connection: RedisClient;
  isAlive: (runnerId: string) => Promise<boolean>;
  hotFunctions: FunctionExecutor | undefined;
  worker: Pick<WorkerServices, 'credentials' | 'privateImages'>;
  registry: Registry;
  log: Logger;
}

/** Function calls of the cluster: `default` ones in a container each, hot formats through a pool of hot containers. */
function functionWorkerOf(
  config: Config,
  identity: RunnerIdentity,
  executor: DockerExecutor,
  deps: FunctionWorkerDeps,
): FunctionWorker {
  const { runner: settings, functions } = config;
  const cold = new ColdExecutor(deps.docker, executor, {
    network: settings.network,
    pidsLimit: settings.pidsLimit,
    nanoCpus: settings.milliCpus * 1_000_000,
    labels: identity.labels,
    maxLogBytes: functions.maxLogBytes,
  });
  const options = {
    cluster: settings.cluster,
    runnerId: identity.id,
    slots: functions.runnerSlots,
    projectSlots: functions.projectSlots,
    maxAnswerBytes: functions.maxAnswerBytes,
    reclaimEveryMs: settings.stalledCheckMs,
    recordFlushMs: functions.recordFlushMs,
    isAlive: deps.isAlive,
  };
  const hot =
    deps.hotFunctions ??
    new HotFunctionPool(deps.docker, {
      labels: identity.labels,
      network: settings.network,
      pidsLimit: settings.pidsLimit,
      milliCpus: settings.milliCpus,
      socketRoot: functions.socketDir,
      busyWaitMs: functions.busyWaitMs,
      maxWaiting: functions.maxWaitingCalls,
      registries: registryGuardOf(config),
      maxProjectContainers: functions.maxProjectHotContainers,
      maxIdleMs: functions.maxIdleMs,
      logWatch: new CallLogMetrics(deps.registry, deps.log),
      log: deps.log,
    });
  const images = new FunctionImageGate(deps.worker.credentials, deps.worker.privateImages, executor);
  return new FunctionWorker(deps.stores, deps.bus, deps.connection, { images, cold, hot }, options, deps.log);
}
