import { pino, type Logger } from 'pino';
import { shutdownTimeoutMs, type Config } from '../src/core/config.js';
import { createProcessRegistry } from '../src/metrics/registry.js';
import { serveRunnerMetrics } from './metrics-server.js';
import { Runner } from './runner.js';

/**
 * `ferrum runner`: a runner daemon, until SIGTERM or SIGINT; /metrics and /health on
 * HOST:FERRUM_RUNNER_METRICS_PORT (exits at once when that port cannot be had). With
 * FERRUM_RUNNER_TOKEN it reaches the installation only through the runner API at FERRUM_API_URL
 * (gateway mode); otherwise it works against the Redis of REDIS_URL (direct mode).
 */
export async function runRunnerDaemon(config: Config): Promise<Runner> {
  const { gateway } = config.runner;
  if (!gateway && !config.redisUrl)
    throw new Error(
      'a runner needs REDIS_URL (the Redis of the controllers) or --api URL --token TOKEN (FERRUM_API_URL, FERRUM_RUNNER_TOKEN)',
    );
  const log: Logger = pino({ level: config.logLevel });
  const registry = createProcessRegistry();
  const timeoutMs = shutdownTimeoutMs(config, 'runner');
  const startup = (async () => {
    // Listening first: a runner that cannot serve its probes stops before it takes any task.
    const metricsServer = await serveRunnerMetrics(registry, config.host, config.runner.metricsPort, log);
    const runner = await (
      gateway
        ? Runner.startGateway(config, gateway, log, undefined, registry)
        : Runner.start(config, config.redisUrl!, log, undefined, registry)
    ).catch((error: unknown) => {
      metricsServer.close();
      throw error;
    });
    return { metricsServer, runner };
  })();
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, timeout_ms: timeoutMs }, 'draining');
    setTimeout(() => {
      log.error({ timeout_ms: timeoutMs }, 'shutdown took too long; exiting now');
      process.exit(1);
    }, timeoutMs).unref();
    // A signal during startup stops the runner once it has started.
    startup
      .then(({ metricsServer, runner }) => {
        metricsServer.close();
        return runner.stop();
      })
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'runner shutdown failed');
          process.exit(1);
        },
      );
  };
  // From the start: as a container's process 1, a signal without a handler would be ignored.
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  const { metricsServer, runner } = await startup;
  // An instance the autoscaler retired stops by itself once its tasks are done: the process ends with it.
  void runner.whenStopped().then((cleanly) => {
    metricsServer.close();
    process.exit(cleanly ? 0 : 1);
  });
  return runner;
}
