/**
 * A one-line status on stderr for long waits, redrawn in place; silent when stderr is not a
 * terminal so scripts and pipes see only the results.
 */
export class Progress {
  private readonly enabled: boolean;
  private shown = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.enabled = Boolean(stream.isTTY);
  }

  update(text: string): void {
    if (!this.enabled) return;
    this.stream.write(`\r\x1b[2K${text}`);
    this.shown = true;
  }

  /** Removes the status line (before printing results, and at the end). */
  clear(): void {
    if (!this.enabled || !this.shown) return;
    this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}

/** Runs `work` showing `label` with the elapsed seconds until it settles. */
export async function withProgress<T>(label: string, work: Promise<T>, progress = new Progress()): Promise<T> {
  const started = Date.now();
  const draw = () => progress.update(`${label} ${((Date.now() - started) / 1000).toFixed(0)}s`);
  draw();
  const timer = setInterval(draw, 250);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    progress.clear();
  }
}
