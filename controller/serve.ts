import { loadConfig, shutdownTimeoutMs, type Config } from '../src/core/config.js';
import { REDIS_INSTALL_HINT, redisServerAvailable } from '../src/core/managed-redis.js';
import { chooseLogFormat, processLogger } from '../src/core/process-log.js';
import { DEFAULT_EMAIL } from '../src/auth/bootstrap.js';
import { printBootstrap } from './admin/print-bootstrap.js';
import { startAllInOne } from './all-in-one.js';
import cluster from 'node:cluster';
import type { Served } from './served.js';
import { serveHttpWorker } from './cluster/http-worker.js';
import { startPrimary } from './cluster/primary.js';
import { startController, type ControllerOptions } from './main.js';
import { StopSignals, type StopSteps } from './stop-signals.js';

/** Where the process's own lines go (the logs go through the logger). */
const print = (line: string) => process.stdout.write(line + '\n');

/**
 * Whether a person runs this in a terminal (stdin and stdout both one): no load balancer watches
 * /ready then, so an all-in-one drains only when FERRUM_HTTP_DRAIN_MS asks for it.
 */
export function interactiveDrainMs(config: Config, interactive: boolean): number {
  return interactive && !config.httpDrainGiven ? 0 : config.httpDrainMs;
}

/** FERRUM_WORKERS=1: the controller (and in `ferrum start` the runner) in this process. */
async function startInProcess(config: Config, withRunner: boolean, options: ControllerOptions): Promise<Served> {
  const allInOne = withRunner ? await startAllInOne(config, options) : null;
  const running = allInOne?.controller ?? (await startController(config, options));
  return {
    url: running.url,
    bootstrap: running.bootstrap,
    ironJsonPath: running.ironJsonPath,
    // A controller first drains (/ready 503, still serving) so load balancers take it out.
    stop: async () => {
      if (allInOne) return allInOne.stop();
      await running.drain();
      await running.stop();
    },
    stopNow: () => running.stopNow(),
  };
}

/** The one line a start ends with: where the API and the dashboard are, and how to sign in. */
function startLine(running: Served, config: Config): string {
  const who = running.bootstrap?.email ?? config.bootstrap.email ?? DEFAULT_EMAIL;
  const signIn = running.bootstrap
    ? `sign in as ${who} with the password above`
    : `sign in as ${who} (or with a token: npx ferrum admin token makes one)`;
  return `Ferrum listening on ${running.url} (API and dashboard at ${running.url}/; ${signIn})`;
}

/**
 * How the server stops, also while it still starts: a first signal then lets the start end (an
 * HTTP worker may already be serving; with workers, the ones not yet started stop as soon as
 * they are) and stops it gracefully; a second one exits at once, which stops the managed
 * redis-server (its 'exit' hook) and, the primary gone, the HTTP workers.
 */
function stopStepsOf(starting: Promise<Served>, stopRequested: AbortController): StopSteps {
  let served: Served | null = null;
  starting.then((running) => (served = running)).catch(() => undefined);
  return {
    stop: async () => {
      stopRequested.abort();
      await (await starting).stop();
    },
    stopNow: async () => {
      stopRequested.abort();
      await served?.stopNow();
    },
  };
}

/** `ferrum start` (withRunner) and `ferrum controller`: start, then stop on SIGINT/SIGTERM. */
export async function serve(withRunner: boolean): Promise<void> {
  if (cluster.isWorker) return serveHttpWorker();
  const startedAt = Date.now();
  const loaded = loadConfig();
  if (!loaded.redisUrl && !redisServerAvailable()) {
    process.stderr.write(REDIS_INSTALL_HINT + '\n');
    process.exit(1);
  }
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const config = withRunner ? { ...loaded, httpDrainMs: interactiveDrainMs(loaded, interactive) } : loaded;
  const log = processLogger(config.logLevel, chooseLogFormat(config.logFormat, Boolean(process.stdout.isTTY)));
  let started = false;
  const options: ControllerOptions = {
    log,
    // The managed redis-server keeps dying: exit non-zero so a process supervisor takes over.
    onFatal: (error: Error) => {
      process.stderr.write(`ferrum: ${error.message}; exiting\n`);
      if (started) signals.signal('redis-server failed', 1);
      else process.exit(1);
    },
  };
  const stopRequested = new AbortController();
  const starting =
    config.workers > 1
      ? startPrimary(config, withRunner, options, stopRequested.signal)
      : startInProcess(config, withRunner, options);
  // Installed before the start ends: a signal while starting stops what started gracefully.
  const signals = new StopSignals(stopStepsOf(starting, stopRequested), {
    log,
    timeoutMs: shutdownTimeoutMs(config, withRunner ? 'all-in-one' : 'controller'),
    drainMs: config.httpDrainMs,
    print,
    exit: (code) => process.exit(code),
  });
  signals.install();
  const running = await starting.catch((error: unknown) => {
    // A start that fails once a stop is under way: the stop reports it and exits.
    if (stopRequested.signal.aborted) return null;
    throw error;
  });
  if (!running) return;
  started = true;
  if (running.bootstrap) printBootstrap(running.bootstrap, running.ironJsonPath);
  log.info({ startup_ms: Date.now() - startedAt, drain_ms: config.httpDrainMs, workers: config.workers }, 'started');
  if (!stopRequested.signal.aborted) print(startLine(running, config));
}
