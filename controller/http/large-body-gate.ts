import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface LargeBodySettings {
  /** A request whose Content-Length is at least this many bytes is a large one. */
  thresholdBytes: number;
  /** Most large requests of one project read and handled at once by this controller (0: no bound). */
  perProject: number;
  /** Bytes per second of one project's large bodies this controller reads (0: no bound). */
  bytesPerSecond: number;
}

/**
 * Spaces each key's bytes to `rate` per second: a request waits until the key's earlier bytes
 * have had their time (the first burst of a quiet key passes at once).
 */
class KeyedPacer {
  private readonly freeAt = new Map<string, number>();

  constructor(private readonly rate: number) {}

  /** How long a request of `bytes` for `key` waits now, in ms; books its time. */
  book(key: string, bytes: number): number {
    const now = Date.now();
    const start = Math.max(now, this.freeAt.get(key) ?? 0);
    this.freeAt.set(key, start + (bytes / this.rate) * 1000);
    this.forgetPast(now);
    return start - now;
  }

  private forgetPast(now: number): void {
    if (this.freeAt.size < 1000) return;
    for (const [key, at] of this.freeAt) if (at < now) this.freeAt.delete(key);
  }
}

/** FIFO slots per key: `acquire` resolves when one is free; its release function frees it once. */
class KeyedSlots {
  private readonly held = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly size: number) {}

  acquire(key: string): Promise<() => void> {
    if ((this.held.get(key) ?? 0) < this.size) return Promise.resolve(this.take(key));
    return new Promise((resolve) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push(() => resolve(this.take(key)));
      this.waiting.set(key, queue);
    });
  }

  private take(key: string): () => void {
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key);
    };
  }

  private release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(key);
    const held = (this.held.get(key) ?? 1) - 1;
    if (held === 0) this.held.delete(key);
    else this.held.set(key, held);
    next?.();
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    releaseLargeBody: (() => void) | null;
  }
}

function projectOfRoute(request: FastifyRequest): string | undefined {
  const params: unknown = request.params;
  if (typeof params !== 'object' || params === null || !('project_id' in params)) return undefined;
  return typeof params.project_id === 'string' ? params.project_id : undefined;
}

/**
 * One tenant's large bodies (cache values, message batches, uploads) are read and handled a few
 * at a time per project, and at most `bytesPerSecond` of them: parsing megabytes of JSON holds
 * the event loop, so a flood of them from one project would otherwise delay every other tenant's
 * small requests. A waiting request's body stays unread in the socket (TCP pushes back on the
 * sender).
 */
export function installLargeBodyGate(app: FastifyInstance, settings: LargeBodySettings): void {
  if (settings.perProject <= 0) return;
  const slots = new KeyedSlots(settings.perProject);
  const pacer = settings.bytesPerSecond > 0 ? new KeyedPacer(settings.bytesPerSecond) : null;
  app.decorateRequest('releaseLargeBody', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const length = Number(request.headers['content-length'] ?? 0);
    const project = length >= settings.thresholdBytes ? projectOfRoute(request) : undefined;
    if (project === undefined) return done();
    void slots.acquire(project).then((release) => {
      request.releaseLargeBody = release;
      // A client that gives up before its answer frees the slot too.
      request.raw.once('close', release);
      const wait = pacer?.book(project, length) ?? 0;
      if (wait > 0) setTimeout(done, wait);
      else done();
    });
  });
  app.addHook('onResponse', (request, _reply, done) => {
    request.releaseLargeBody?.();
    done();
  });
}
