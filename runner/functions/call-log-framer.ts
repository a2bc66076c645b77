import { StringDecoder } from 'node:string_decoder';

interface Entry {
  callId: string;
  parts: string[];
  bytes: number;
  /** When its settle wait ends (epoch ms; 0: it waits for none yet), and that wait's length. */
  due: number;
  waitMs: number;
  /** Times its settle wait was given again because the process was too busy to read meanwhile. */
  rearmed: number;
  finished: boolean;
  /** Its frame line has arrived on stderr. */
  framed: boolean;
  resolve(text: string): void;
  done: Promise<string>;
}

/** Stderr kept per call; the rest of a chattier call is dropped. */
const MAX_CALL_LOG_BYTES = 1024 * 1024;

/** Longest wait after an answer for the call's own frame line (stderr lagging behind answers). */
const FRAME_WAIT_MS = 5000;

/** How often a settle wait is given again after the event loop was held up through it. */
const MOST_REARMS = 3;

/**
 * Splits the stderr of a hot container into the logs of its calls. The engine relays stderr
 * apart from the answer, so a call's last lines may arrive after its answer: a log is complete
 * once the next call's frame line arrives, the container ends, or `settleMs` passed after the
 * answer. Functions built with an FDK write a frame line `<frameName>=<call id>` to stderr as
 * each call starts (FN_LOGFRAME_NAME / FN_LOGFRAME_HDR); until one is seen, the container's
 * stderr goes to the call it is serving. Once a container has written frame lines, a call's
 * settle time starts when its own frame line arrives, so that stderr relayed late on a busy
 * machine still reaches its call (up to FRAME_WAIT_MS after the answer).
 */
export class CallLogFramer {
  private readonly entries = new Map<string, Entry>();
  private readonly decoder = new StringDecoder('utf8');
  private current: Entry | null = null;
  private partial = '';
  /** A blank line held back: the one before a frame line is part of the frame. */
  private blank = false;
  /** Whether the function writes frame lines. */
  private framed = false;
  private ended = false;
  /** The log of the call finished last, for a failure reported after its end. */
  private last: { callId: string; text: string } | null = null;
  /** What a frame line starts with: `<frameName>=`. */
  private readonly framePrefix: string | null;
  /**
   * One timer serves every settle wait, set at or before the earliest one's end: a call that
   * ends as the next one's frame line arrives sets and clears no timer of its own.
   */
  private timer: NodeJS.Timeout | null = null;
  private timerDue = 0;

  /** `readNow`: the container's output already waiting is read at the event loop's next poll (its reader may read it late). */
  constructor(
    frameName: string | null,
    private readonly settleMs: number,
    private readonly readNow: () => void = () => {},
  ) {
    this.framePrefix = frameName ? `${frameName}=` : null;
  }

  /** Whether the function writes frame lines: then a line goes to its call however late it is read. */
  get framesCalls(): boolean {
    return this.framed;
  }

  /** A call is about to be sent to the container. */
  open(callId: string): void {
    let resolve!: (text: string) => void;
    const done = new Promise<string>((settle) => (resolve = settle));
    const entry: Entry = {
      callId,
      parts: [],
      bytes: 0,
      due: 0,
      waitMs: 0,
      rearmed: 0,
      finished: false,
      framed: false,
      resolve,
      done,
    };
    if (this.ended) resolve('');
    else this.entries.set(callId, entry);
    // Unframed, output goes to the newest call; the one before still ends at its settle time,
    // so its own frame line, should it come late, still finds it.
    if (!this.framed) this.current = entry;
  }

  /** The call was answered: its log, once nothing more of it can come. */
  answered(callId: string): Promise<string> {
    const entry = this.entries.get(callId);
    if (!entry) return Promise.resolve('');
    const frameToCome = this.framed && !entry.framed;
    if (entry.due === 0) this.settleAfter(entry, frameToCome ? FRAME_WAIT_MS : this.settleMs);
    return entry.done;
  }

  /** The call failed: its log as far as it came. */
  closeNow(callId: string): string {
    const entry = this.entries.get(callId);
    if (!entry) return this.last?.callId === callId ? this.last.text : '';
    this.finish(entry);
    return entry.parts.join('');
  }

  push(chunk: Buffer): void {
    const lines = (this.partial + this.decoder.write(chunk)).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  /** The container's output ended: every log is complete. */
  end(): void {
    this.ended = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const entry of [...this.entries.values()]) this.finish(entry);
  }

  private line(line: string): void {
    if (this.framePrefix && line.startsWith(this.framePrefix)) {
      this.blank = false;
      this.framed = true;
      const next = this.entries.get(line.slice(this.framePrefix.length).trim()) ?? null;
      if (this.current && this.current !== next) this.finish(this.current);
      this.current = next;
      if (next && !next.framed) this.frameArrived(next);
      return;
    }
    if (line === '' && !this.blank) {
      this.blank = true;
      return;
    }
    if (this.blank) this.append('\n');
    this.blank = false;
    this.append(`${line}\n`);
  }

  /** An answered call waiting for its frame line now settles as any other. */
  private frameArrived(entry: Entry): void {
    entry.framed = true;
    if (entry.due === 0) return;
    this.settleAfter(entry, this.settleMs);
  }

  /**
   * Ends the entry's log `ms` from now. A process held up past that time runs its timers before
   * it reads the output already waiting on its socket: the end waits for one read (setImmediate
   * runs after the poll phase), and a wait that overran by more than itself is given again, a
   * few times at most, so that a busy machine's stderr still reaches its call.
   */
  private settleAfter(entry: Entry, ms: number): void {
    entry.due = Date.now() + ms;
    entry.waitMs = ms;
    if (this.timer === null || this.timerDue > entry.due) this.setTimer(entry.due);
  }

  private setTimer(due: number): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.readNow();
        setImmediate(() => this.settleDue());
      },
      Math.max(0, due - Date.now()),
    );
  }

  /** Ends the logs whose settle wait is over (or gives an overrun one its wait again); the timer then serves the next. */
  private settleDue(): void {
    const now = Date.now();
    let next = 0;
    for (const entry of this.entries.values()) {
      if (entry.due === 0) continue;
      if (entry.due <= now) {
        if (now - entry.due > entry.waitMs && entry.rearmed < MOST_REARMS) {
          entry.rearmed += 1;
          entry.due = now + entry.waitMs;
        } else {
          this.finish(entry);
          continue;
        }
      }
      if (next === 0 || entry.due < next) next = entry.due;
    }
    if (next !== 0 && (this.timer === null || this.timerDue > next)) this.setTimer(next);
  }

  private append(text: string): void {
    const entry = this.current;
    if (!entry || entry.bytes >= MAX_CALL_LOG_BYTES) return;
    const part =
      text.length + entry.bytes > MAX_CALL_LOG_BYTES ? text.slice(0, MAX_CALL_LOG_BYTES - entry.bytes) : text;
    entry.parts.push(part);
    entry.bytes += part.length;
  }

  private finish(entry: Entry): void {
    entry.finished = true;
    if (this.current === entry) {
      if (this.partial !== '') this.append(this.partial);
      this.partial = '';
      this.current = null;
    }
    entry.due = 0;
    const text = entry.parts.length === 1 ? entry.parts[0]! : entry.parts.join('');
    if (this.entries.get(entry.callId) === entry) {
      this.entries.delete(entry.callId);
      this.last = { callId: entry.callId, text };
    }
    entry.resolve(text);
  }
}
