import net from 'node:net';

/** The most of a container's stderr one read takes; a read that fills it means more is waiting. */
const READ_BYTES = 64 * 1024;
/**
 * How long a paced stream goes unread after a read that emptied it. A hot container serves some
 * tens of calls a second on a busy 2-core machine: a much shorter pause would coalesce nothing.
 * It stays well under how long a call's log is held for late output (call-log-framer.ts).
 */
const PAUSE_MS = 100;
/** How long a removed container's engine gets to close its stream (what is still on it is read meanwhile). */
const DRAIN_MS = 2000;

/** The paced streams resting now, and the one timer that wakes them all. */
const resting = new Set<StderrAttach>();
let restTimer: NodeJS.Timeout | null = null;

function wakeResting(): void {
  restTimer = null;
  for (const stream of [...resting]) stream.readNow();
}

/**
 * A container's stderr from the engine's attach endpoint, on a connection of its own to the
 * engine's unix socket, read into one buffer (net's `onread` option: no buffer, stream push or
 * event per read). Once paced, the connection stops reading for PAUSE_MS after a read that
 * emptied it (for an `onread` socket, `pause()` stops the read in the event loop, and `resume()`
 * starts it again): what the function writes meanwhile waits in the kernel and is read in one
 * go, so a container serving calls back to back costs one read and one wake-up per PAUSE_MS
 * rather than one per call. A function writing more than a read takes is read as it writes.
 */
export class StderrAttach {
  private head = '';
  private upgraded = false;
  private paced = false;
  private isResting = false;
  private readonly closed: Promise<void>;
  private answered: (error: Error | null) => void = () => {};

  private constructor(
    private readonly socket: net.Socket,
    private readonly onBytes: (chunk: Buffer) => void,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** Attaches to the container's stderr; `onEnd` once the engine ends the stream (the container is gone). */
  static async open(
    engineSocket: string,
    containerId: string,
    onBytes: (chunk: Buffer) => void,
    onEnd: () => void,
  ): Promise<StderrAttach> {
    // Each read lands in this one buffer; what is kept of it is decoded before the next read.
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let attach: StderrAttach | null = null;
    const socket = net.connect({ path: engineSocket, onread: { buffer, callback: (n) => attach!.read(n, buffer) } });
    attach = new StderrAttach(socket, onBytes);
    const upgraded = new Promise<void>((resolve, reject) => {
      attach!.answered = (error) => (error ? reject(error) : resolve());
      socket.once('error', reject);
      socket.once('close', () => reject(new Error('the engine closed the attach connection')));
    });
    socket.write(
      `POST /containers/${encodeURIComponent(containerId)}/attach?stream=1&stdout=0&stderr=1 HTTP/1.1\r\n` +
        'Host: docker\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 0\r\n\r\n',
    );
    try {
      await upgraded;
    } catch (error) {
      socket.destroy();
      throw error;
    }
    socket.removeAllListeners('error');
    socket.on('error', () => {});
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    return attach;
  }

  /** One read: the engine's answer to the upgrade first, then the stream's bytes. False pauses the socket. */
  private read(nread: number, buffer: Buffer): boolean {
    let chunk = buffer.subarray(0, nread);
    if (!this.upgraded) {
      const rest = this.readHead(chunk);
      if (rest === null) return true;
      chunk = rest;
    }
    if (chunk.length > 0) this.onBytes(chunk);
    if (!this.paced || nread === READ_BYTES) return true;
    this.rest();
    return false;
  }

  /** The engine's answer to the upgrade; the stream's first bytes after it, or null while it is not all here. */
  private readHead(chunk: Buffer): Buffer | null {
    this.head += chunk.toString('latin1');
    const end = this.head.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(this.head)?.[1];
    if (status !== '101' && status !== '200') {
      this.answered(new Error(`the engine refused to attach: ${this.head.split('\r\n')[0]}`));
      return null;
    }
    this.upgraded = true;
    const rest = Buffer.from(this.head.slice(end + 4), 'latin1');
    this.head = '';
    this.answered(null);
    return rest;
  }

  /** Reads in bursts from now on (see the class). */
  pace(): void {
    this.paced = true;
  }

  private rest(): void {
    this.isResting = true;
    resting.add(this);
    restTimer ??= setTimeout(wakeResting, PAUSE_MS);
  }

  /** Reads whatever waits now (at the event loop's next poll), if the stream is resting. */
  readNow(): void {
    if (!this.isResting) return;
    this.isResting = false;
    resting.delete(this);
    if (resting.size === 0 && restTimer !== null) {
      clearTimeout(restTimer);
      restTimer = null;
    }
    if (!this.socket.destroyed) this.socket.resume();
  }

  /** Reads as output comes from now on until the engine closes the stream (at most DRAIN_MS), then closes it. */
  async close(): Promise<void> {
    this.paced = false;
    this.readNow();
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([this.closed, new Promise((resolve) => (bound = setTimeout(resolve, DRAIN_MS)))]);
    clearTimeout(bound);
    this.socket.destroy();
  }
}
