import { Runner } from '../../runner/runner.js';
import type { Config } from '../../src/core/config.js';
import { startManagedRedis } from '../../src/core/managed-redis.js';
import { createProcessRegistry } from '../../src/metrics/registry.js';
import { publicHostOf, refreshIronJson } from '../admin/iron-json.js';
import { removeRunningServer, writeRunningServer } from '../admin/running-server.js';
import { managedRedisOptions, type ControllerOptions } from '../main.js';
import type { Served } from '../served.js';
import { InstallationMetrics } from './installation-metrics.js';
import { WorkerSupervisor } from './supervisor.js';

/**
 * `ferrum start` / `ferrum controller` with FERRUM_WORKERS > 1, the primary process: the managed
 * redis-server (without REDIS_URL), the runner (`ferrum start`) and the installation's files
 * (iron.json, server.json) are here, once; the HTTP APIs and the controller's loops run in the
 * workers (controller/cluster/http-worker.ts), whose leader leases keep each loop to one.
 */
export async function startPrimary(
  config: Config,
  withRunner: boolean,
  options: ControllerOptions,
  stopRequested: AbortSignal,
): Promise<Served> {
  const log = options.log!;
  const managed = config.redisUrl ? null : await startManagedRedis(managedRedisOptions(config, options));
  const redisUrl = config.redisUrl ?? managed!.url;
  const registry = createProcessRegistry();
  const supervisor = new WorkerSupervisor({
    count: config.workers,
    // The workers are controllers of this Redis; the drain is the primary's (a terminal's none).
    env: { REDIS_URL: redisUrl, FERRUM_HTTP_DRAIN_MS: String(config.httpDrainMs) },
    log,
    onMessage: (worker, message) => metrics.onMessage(worker, message),
  });
  const metrics = new InstallationMetrics(registry, () => supervisor.workers());
  let runner: Runner | null = null;
  try {
    const first = await supervisor.start(stopRequested);
    // The runner's metrics join the workers' on /metrics; a stop asked for meanwhile needs none.
    if (withRunner && !stopRequested.aborted) runner = await Runner.start(config, redisUrl, log, undefined, registry);
    const host = publicHostOf(config);
    const address = { host, port: first.port, protocol: config.publicScheme };
    // The data folder is this installation's own only with the managed Redis.
    if (managed) writeRunningServer(config.dataDir, address);
    const ironJsonPath = first.bootstrap || !managed ? first.ironJsonPath : refreshIronJson(config.dataDir, address);
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${first.port}`,
      bootstrap: first.bootstrap,
      ironJsonPath,
      stop: async () => {
        // As in one process: the HTTP drain and the runner's together, then the controllers stop.
        await Promise.all([supervisor.drain(), runner?.stop()]);
        await supervisor.stop();
        await managed?.stop();
        removeRunningServer(config.dataDir);
      },
      stopNow: async () => {
        supervisor.kill();
        await managed?.stop();
        removeRunningServer(config.dataDir);
      },
    };
  } catch (error) {
    supervisor.kill();
    await runner?.stop();
    await managed?.stop();
    throw error;
  }
}
