import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { RegistryFigures, WorkerMessage } from './messages.js';

/** How long a scrape waits for a worker's figures; one that is busy starting or dying is left out. */
const GATHER_MS = 2000;

interface Gathering {
  figures: RegistryFigures[];
  waiting: number;
  done(): void;
}

/**
 * The primary's side of /metrics with HTTP workers: the worker a scrape reached asks here, the
 * primary gathers every live worker's figures and its own (the runner's, in `ferrum start`) and
 * answers the aggregate (prom-client's AggregatorRegistry: counters and histograms summed,
 * gauges by their `aggregator`), so one scrape gives the installation's figures.
 */
export class InstallationMetrics {
  private nextId = 0;
  private readonly gatherings = new Map<number, Gathering>();

  constructor(
    private readonly own: Registry,
    private readonly liveWorkers: () => Worker[],
  ) {}

  onMessage(worker: Worker, message: WorkerMessage): void {
    if (message.ferrum === 'scrape') void this.answer(worker, message.id);
    if (message.ferrum !== 'gathered') return;
    const gathering = this.gatherings.get(message.id);
    if (!gathering) return;
    gathering.figures.push(message.figures);
    if (--gathering.waiting === 0) gathering.done();
  }

  async text(): Promise<string> {
    const figures = [await this.own.getMetricsAsJSON(), ...(await this.gather())];
    return AggregatorRegistry.aggregate(figures).metrics();
  }

  private async answer(worker: Worker, id: number): Promise<void> {
    try {
      const text = await this.text();
      if (worker.isConnected()) worker.send({ ferrum: 'scraped', id, text });
    } catch (error) {
      if (worker.isConnected()) worker.send({ ferrum: 'scrape-failed', id, error: (error as Error).message });
    }
  }

  private gather(): Promise<RegistryFigures[]> {
    const id = this.nextId++;
    const workers = this.liveWorkers().filter((worker) => worker.isConnected());
    return new Promise((resolve) => {
      const gathering: Gathering = {
        figures: [],
        waiting: workers.length,
        done: () => {
          clearTimeout(timer);
          this.gatherings.delete(id);
          resolve(gathering.figures);
        },
      };
      const timer = setTimeout(() => gathering.done(), GATHER_MS);
      this.gatherings.set(id, gathering);
      if (workers.length === 0) return gathering.done();
      for (const worker of workers) worker.send({ ferrum: 'gather', id });
    });
  }
}
