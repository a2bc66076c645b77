import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import { loadConfig } from '../../src/core/config.js';
import { chooseLogFormat, processLogger } from '../../src/core/process-log.js';
import { startController, type RunningController } from '../main.js';
import { STOP_SIGNALS } from '../stop-signals.js';
import { isPrimaryMessage, type PrimaryMessage, type WorkerMessage } from './messages.js';

/** How long a /metrics request waits for the primary's aggregate. */
const SCRAPE_MS = 5000;

const send = (message: WorkerMessage) => process.send?.(message);

/** A worker's /metrics: the installation's figures, as its primary aggregates them. */
class ScrapesOfPrimary {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();

  scrape(): Promise<string> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('the primary process did not answer with the metrics in time'));
      }, SCRAPE_MS);
      const settle = (then: () => void) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        then();
      };
      this.waiting.set(id, {
        resolve: (text) => settle(() => resolve(text)),
        reject: (error) => settle(() => reject(error)),
      });
      send({ ferrum: 'scrape', id });
    });
  }

  onMessage(message: PrimaryMessage): void {
    if (message.ferrum === 'scraped') this.waiting.get(message.id)?.resolve(message.text);
    if (message.ferrum === 'scrape-failed') this.waiting.get(message.id)?.reject(new Error(message.error));
  }
}

/**
 * One HTTP worker of `ferrum start` / `ferrum controller` with FERRUM_WORKERS > 1: a controller
 * on the port the workers share (its loops hold their leader leases like any controller's), told
 * by its primary when to drain and stop. Signals are the primary's to act on: a Ctrl-C reaches
 * every process of the terminal's group, and the primary stops the workers in step with the
 * runner. Without its primary (killed) the worker exits. Told to stop while starting, it gives
 * its start up if it does not listen yet.
 */
export async function serveHttpWorker(): Promise<void> {
  const config = loadConfig();
  const log = processLogger(config.logLevel, chooseLogFormat(config.logFormat, Boolean(process.stdout.isTTY))).child({
    worker: cluster.worker?.id,
  });
  for (const name of STOP_SIGNALS) process.on(name, () => undefined);
  process.on('disconnect', () => {
    log.warn('the primary process is gone; exiting');
    process.exit(1);
  });
  const scrapes = new ScrapesOfPrimary();
  const stopRequested = new AbortController();
  let running: RunningController | null = null;
  process.on('message', (message: unknown) => {
    if (!isPrimaryMessage(message)) return;
    scrapes.onMessage(message);
    if (running) obeyPrimary(running, message, log);
    else if (message.ferrum === 'stop') stopRequested.abort();
  });
  send({ ferrum: 'starting' });
  try {
    running = await startController(config, {
      log,
      metricsScrape: () => scrapes.scrape(),
      stopRequested: stopRequested.signal,
    });
  } catch (error) {
    if (!stopRequested.signal.aborted) throw error;
    log.info('stopped while starting');
    process.exit(0);
  }
  send({ ferrum: 'ready', port: running.port, bootstrap: running.bootstrap, ironJsonPath: running.ironJsonPath });
  // Told to stop once it listened: it may have taken requests already.
  if (stopRequested.signal.aborted) obeyPrimary(running, { ferrum: 'stop' }, log);
}

let stopping = false;

function obeyPrimary(
  running: RunningController,
  message: PrimaryMessage,
  log: { error: (o: object, m: string) => void },
) {
  if (message.ferrum === 'gather') void answerGather(running.ctx.metrics.registry, message.id);
  if (message.ferrum === 'drain') void running.drain().then(() => send({ ferrum: 'drained' }));
  if (message.ferrum === 'stop' && !stopping) {
    stopping = true;
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  }
}

async function answerGather(registry: Registry, id: number): Promise<void> {
  send({ ferrum: 'gathered', id, figures: await registry.getMetricsAsJSON() });
}
