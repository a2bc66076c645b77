import type http from 'node:http';
import type Docker from 'dockerode';
import { pino, type Level } from 'pino';
import { Registry } from 'prom-client';
import { serveRunnerMetrics } from '../../runner/metrics-server.js';
import { Runner } from '../../runner/runner.js';
import { loadConfig } from '../../src/core/config.js';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import type { TestServer } from './server.js';

/** A runner in this process with its own registry and /metrics server, as the `ferrum runner` daemon has. */
export interface MeteredRunner {
  runner: Runner;
  metrics: http.Server;
  /** host:port of its /metrics. */
  target: string;
}

/** A direct runner of the file's server with `env` (whole: no worker defaults added); `logLevel` of its own log. */
export async function startMeteredRunner(
  server: TestServer,
  env: Record<string, string>,
  { logLevel = 'warn', docker }: { logLevel?: Level; docker?: Docker } = {},
): Promise<MeteredRunner> {
  const config = loadConfig({ ...env, ...server.redisEnv, FERRUM_DATA_DIR: server.config.dataDir });
  const registry = new Registry();
  const runner = await Runner.start(config, config.redisUrl!, pino({ level: logLevel }), docker, registry);
  const port = await freeLoopbackPort();
  const metrics = await serveRunnerMetrics(registry, '127.0.0.1', port, pino({ level: 'warn' }));
  return { runner, metrics, target: `127.0.0.1:${port}` };
}
