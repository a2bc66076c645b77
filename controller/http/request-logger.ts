import type { FastifyBaseLogger } from 'fastify';

type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger (`request.log`, `reply.log`), made when the request first logs. fastify
 * gives every request a child of the server's logger with its request id bound, and pino builds
 * each child at once (its formatters, the bindings' JSON text): on every request, although most
 * log nothing (request logging is off by default and errors are rare). This one keeps what the
 * child is made of and makes it on first use; what it logs is the same.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: ChildOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(...args: unknown[]): void {
    this.log('silent', args);
  }

  child(bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  private log(level: Level, args: unknown[]): void {
    const logger = this.logger;
    (logger[level] as (...given: unknown[]) => void).apply(logger, args);
  }
}

/** fastify's `childLoggerFactory`: each request's logger, made when it first logs. */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: ChildOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
