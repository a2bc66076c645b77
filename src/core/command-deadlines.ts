import type { Redis } from 'ioredis';

/** A command ioredis has written and awaits the answer of, as its queue holds it. */
type Sent = Redis['commandQueue'] extends { peekAt(index: number): infer T | undefined } ? T : never;

/** What ioredis's own command timeout fails a command with (redisErrorKind and the 503 rule know it). */
const TIMED_OUT = 'Command timed out';

/**
 * The deadline of one connection's commands. Redis answers a connection's commands in the order
 * they were written, and ioredis keeps them in that order until answered (`commandQueue`). Each
 * sweep marks the newest command written so far; once a mark is `timeoutMs` old, every command up
 * to the marked one that is still unanswered has waited at least that long, and fails as ioredis's
 * own timeout fails it (the answer, should it come, is then ignored). Nothing is done per command.
 */
class ConnectionDeadlines {
  private readonly marks: { at: number; newest: Sent }[] = [];
  /** Commands already failed here, which stay queued until Redis answers them or the connection closes. */
  private readonly failed = new WeakSet<object>();

  sweep(connection: Redis, now: number, timeoutMs: number): void {
    const queue = connection.commandQueue;
    const newest = queue.peekBack();
    if (newest && newest !== this.marks.at(-1)?.newest) this.marks.push({ at: now, newest });
    let due: Sent | undefined;
    while (this.marks.length > 0 && this.marks[0]!.at <= now - timeoutMs) due = this.marks.shift()!.newest;
    if (due) this.failThrough(queue, due);
  }

  /** Fails the queued commands up to `last`, if it is still queued (else all of them were answered). */
  private failThrough(queue: Redis['commandQueue'], last: Sent): void {
    let end = -1;
    for (let i = 0; i < queue.length && end < 0; i++) if (queue.peekAt(i) === last) end = i;
    for (let i = 0; i <= end; i++) {
      const { command } = queue.peekAt(i)!;
      if (this.failed.has(command)) continue;
      this.failed.add(command);
      command.reject(new Error(TIMED_OUT));
    }
  }
}

/**
 * Fails the commands of `connections` (one Redis, or a Cluster's nodes) that got no answer within
 * `timeoutMs` (Redis hung), with one sweep every quarter of it: a command fails between
 * `timeoutMs` and 1.25 times that after it was written. ioredis's `commandTimeout` option does the
 * same with a timer per command (set on every command, cleared by every answer: garbage on each
 * request of a busy server). Returns the function that stops the sweeps.
 */
export function enforceCommandDeadlines(connections: () => Redis[], timeoutMs: number): () => void {
  const deadlines = new WeakMap<Redis, ConnectionDeadlines>();
  const timer = setInterval(
    () => {
      const now = Date.now();
      for (const connection of connections()) {
        let connectionDeadlines = deadlines.get(connection);
        if (!connectionDeadlines) deadlines.set(connection, (connectionDeadlines = new ConnectionDeadlines()));
        connectionDeadlines.sweep(connection, now, timeoutMs);
      }
    },
    Math.max(5, Math.floor(timeoutMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
