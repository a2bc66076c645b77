import { Readable } from 'node:stream';

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

/** 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * The body as a stream that shows on the terminal how much of it was sent, then waits for the
 * answer ("label 1.5 MB of 6.0 MB (25%)").
 */
export function withUploadProgress(label: string, body: Buffer, progress = new Progress()): Readable {
  const CHUNK = 64 * 1024;
  const total = formatBytes(body.length);
  return Readable.from(
    (function* chunks() {
      for (let sent = 0; sent < body.length; sent += CHUNK) {
        const percent = Math.floor((sent / body.length) * 100);
        progress.update(`${label} ${formatBytes(sent)} of ${total} (${percent}%)`);
        yield body.subarray(sent, sent + CHUNK);
      }
      progress.update(`${label} ${total} sent, waiting for the server…`);
    })(),
    { objectMode: false },
  );
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
