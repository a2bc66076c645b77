/**
 * Collects a task's output and writes it to the log in order, in batches: every `flushMs`,
 * or sooner once `batchBytes` are waiting. Writes never overlap, so order is kept.
 */
export class LogShipper {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly write: (chunk: Buffer) => Promise<unknown>,
    private readonly flushMs: number,
    private readonly batchBytes = 64 * 1024,
  ) {}

  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= this.batchBytes) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = this.writing
      .then(() => this.write(batch))
      .then(
        () => undefined,
        (error: unknown) => {
          this.failure = error;
        },
      );
  }

  /** Writes what is left; rejects if any write failed. */
  async close(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.failure) throw this.failure;
  }
}
