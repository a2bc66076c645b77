import type { FastifyInstance } from 'fastify';

/**
 * A stopping controller's drain window: /ready answers 503 so load balancers take the
 * controller out, while the listener stays open and every request is still served. Answers
 * carry `Connection: close`, so no kept-alive connection outlives the window. It also counts
 * the requests in flight, so a stop can let them finish before the server closes.
 */
export class HttpDrain {
  private ended: Promise<void> | null = null;
  private inFlight = 0;
  private readonly idleWaiters: Array<() => void> = [];
  /** One listener for every response (a closure per request, and `once`'s wrapper, would be garbage on each). */
  private readonly onResponseClosed = () => this.finished();

  constructor(private readonly windowMs: number) {}

  get draining(): boolean {
    return this.ended !== null;
  }

  /** Starts the window (once); resolves when it is over. */
  begin(): Promise<void> {
    this.ended ??= new Promise((resolve) => setTimeout(resolve, this.windowMs).unref());
    return this.ended;
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  install(app: FastifyInstance): void {
    // Callback hooks, not async ones: they run on every request, and a promise per hook shows.
    app.addHook('onRequest', (_request, reply, done) => {
      this.inFlight += 1;
      // 'close' comes once per response: sent, or its connection gone.
      reply.raw.on('close', this.onResponseClosed);
      done();
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (this.draining) reply.header('Connection', 'close');
      done(null, payload);
    });
  }

  private finished(): void {
    this.inFlight -= 1;
    if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
