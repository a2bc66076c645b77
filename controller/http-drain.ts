import type { FastifyInstance } from 'fastify';

/**
 * A stopping controller's drain window: /ready answers 503 so load balancers take the
 * controller out, while the listener stays open and every request is still served. Answers
 * carry `Connection: close`, so no kept-alive connection outlives the window.
 */
export class HttpDrain {
  private ended: Promise<void> | null = null;

  constructor(private readonly windowMs: number) {}

  get draining(): boolean {
    return this.ended !== null;
  }

  /** Starts the window (once); resolves when it is over. */
  begin(): Promise<void> {
    this.ended ??= new Promise((resolve) => setTimeout(resolve, this.windowMs).unref());
    return this.ended;
  }

  /** Marks every answer sent during the drain as the last one of its connection. */
  install(app: FastifyInstance): void {
    app.addHook('onSend', async (_request, reply, payload) => {
      if (this.draining) reply.header('Connection', 'close');
      return payload;
    });
  }
}
