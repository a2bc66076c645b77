import type { Registry } from 'prom-client';
import type { BootstrapResult } from '../../src/auth/bootstrap.js';

/** A registry's figures as `getMetricsAsJSON()` gives them, the form prom-client aggregates. */
export type RegistryFigures = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * What an HTTP worker and its primary say to each other over the cluster's IPC channel. Every
 * message carries `ferrum`, so prom-client's or node's own messages are told apart.
 */
export type WorkerMessage =
  /** The worker runs its start (it loaded its code and listens to its primary). */
  | { ferrum: 'starting' }
  /** The worker listens (its controller started); the first one's start may have bootstrapped. */
  | { ferrum: 'ready'; port: number; bootstrap: BootstrapResult | null; ironJsonPath: string | null }
  /** Its drain window is over (answer to `drain`). */
  | { ferrum: 'drained' }
  /** A /metrics request: the installation's figures, please. */
  | { ferrum: 'scrape'; id: number }
  /** Its own figures (answer to `gather`). */
  | { ferrum: 'gathered'; id: number; figures: RegistryFigures };

export type PrimaryMessage =
  /** Start the drain: /ready 503 while still serving; answer `drained` when the window is over. */
  | { ferrum: 'drain' }
  /**
   * Stop gracefully (drain if not yet, loops, long polls, requests in flight) and exit 0; while
   * starting, give the start up if not yet listening, else stop so once started.
   */
  | { ferrum: 'stop' }
  /** The installation's figures, in the exposition format (answer to `scrape`). */
  | { ferrum: 'scraped'; id: number; text: string }
  | { ferrum: 'scrape-failed'; id: number; error: string }
  /** This worker's own figures, please. */
  | { ferrum: 'gather'; id: number };

function isOurs(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'ferrum' in message;
}

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  return isOurs(message);
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  return isOurs(message);
}
