import { StringDecoder } from 'node:string_decoder';

interface Entry {
  callId: string;
  parts: string[];
  bytes: number;
  /** When its wait ends (epoch ms; 0: it waits for none yet), and that wait's length. */
  due: number;
  waitMs: number;
  /** Times its wait was given again because the process was too busy to read meanwhile. */
  rearmed: number;
  resolve(text: string): void;
  done: Promise<string>;
}

/** What a framer tells of the logs of a framed container that its output did not end. */
export interface CallLogWatch {
  /** A call's log was ended by its wait bound: no frame line of a next call came, nor the container's end. */
  endedByBound(): void;
  /** Output came for the call `callId` after its log was ended (by the bound, or its failure): it is in no call's log. */
  outputAfterEnd(callId: string): void;
}

/** Stderr kept per call; the rest of a chattier call is dropped. */
const MAX_CALL_LOG_BYTES = 1024 * 1024;

/**
 * Longest a framed container's call log stays open after its answer for the frame line that
 * ends it (the next call's) when none comes: the container is idle. Stderr relayed by a busy
 * engine arrives a few hundred ms after the answer at worst seen; a call's record waits for its
 * log, so this is also how late the record of a container's last call may be written.
 */
export const LOG_HOLD_MS = 2000;

/** How often a wait is given again after the event loop was held up through it. */
const MOST_REARMS = 3;

/**
 * Splits the stderr of a hot container into the logs of its calls. The engine relays stderr
 * apart from the answer, so a call's last lines may arrive well after its answer. Functions
 * built with an FDK write a frame line `<frameName>=<call id>` to stderr as each call starts
 * (FN_LOGFRAME_NAME / FN_LOGFRAME_HDR): then a call's log is what comes between its frame line
 * and the next one, and it ends when the next call's frame line arrives or the container's
 * output ends — read from the same ordered stream, however late the engine relays it. Only a
 * container that stays idle ends the log of its last call by a bound, LOG_HOLD_MS after the
 * answer; output still to come for that call then is in no log, and `watch` is told of both.
 * A function that writes no frame lines (known once a call's bound passes with none seen):
 * its stderr goes to the call it is serving, and a log ends `settleMs` after the answer.
 */
export class CallLogFramer {
  private readonly entries = new Map<string, Entry>();
  private readonly decoder = new StringDecoder('utf8');
  private current: Entry | null = null;
  private partial = '';
  /** A blank line held back: the one before a frame line is part of the frame. */
  private blank = false;
  /** Whether the function writes frame lines (one has been seen). */
  private framed = false;
  /** A bound passed with no frame line ever seen: the function writes none. */
  private unframed = false;
  /** Framed: the call whose output comes now though its log has ended (told to `watch` once). */
  private orphan: { callId: string; told: boolean } | null = null;
  private ended = false;
  /** The log of the call finished last, for a failure reported after its end. */
  private last: { callId: string; text: string } | null = null;
  /** What a frame line starts with: `<frameName>=`. */
  private readonly framePrefix: string | null;
  /**
   * One timer serves every wait, set at or before the earliest one's end: a call that ends as
   * the next one's frame line arrives sets and clears no timer of its own.
   */
  private timer: NodeJS.Timeout | null = null;
  private timerDue = 0;

  /**
   * `readNow`: the container's output already waiting is read at the event loop's next poll (its
   * reader may read it late); `watch`: told of the logs a bound ended.
   */
  constructor(
    frameName: string | null,
    private readonly settleMs: number,
    private readonly readNow: () => void = () => {},
    private readonly watch: CallLogWatch | null = null,
  ) {
    this.framePrefix = frameName ? `${frameName}=` : null;
  }

  /** Whether the function writes frame lines: then a line goes to its call however late it is read. */
  get framesCalls(): boolean {
    return this.framed;
  }

  /** Frame lines are asked for, and none has shown they will not come. */
  private get expectsFrames(): boolean {
    return this.framed || (this.framePrefix !== null && !this.unframed);
  }

  /** A call is about to be sent to the container. */
  open(callId: string): void {
    let resolve!: (text: string) => void;
    const done = new Promise<string>((settle) => (resolve = settle));
    const entry: Entry = { callId, parts: [], bytes: 0, due: 0, waitMs: 0, rearmed: 0, resolve, done };
    if (this.ended) resolve('');
    else this.entries.set(callId, entry);
    // Unframed, output goes to the newest call; framed, to the call its frame line names.
    if (!this.framed) this.current = entry;
  }

  /** The call was answered: its log, once nothing more of it can come. */
  answered(callId: string): Promise<string> {
    const entry = this.entries.get(callId);
    if (!entry) return Promise.resolve('');
    if (entry.due === 0) this.waitFor(entry, this.expectsFrames ? LOG_HOLD_MS : this.settleMs);
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
    if (this.framePrefix && line.startsWith(this.framePrefix))
      return this.frameLine(line.slice(this.framePrefix.length).trim());
    if (line === '' && !this.blank) {
      this.blank = true;
      return;
    }
    if (this.blank) this.append('\n');
    this.blank = false;
    this.append(`${line}\n`);
  }

  /** The call `callId` starts: the logs of the calls sent before it are complete, whenever this is read. */
  private frameLine(callId: string): void {
    this.blank = false;
    const next = this.entries.get(callId) ?? null;
    if (next) this.finishBefore(next);
    // Framed, the current call is the one whose frame line came last: it was sent before this one.
    // (Not yet framed, it is the newest call sent, which may be after this one.)
    else if (this.framed && this.current) this.finish(this.current);
    this.framed = true;
    this.current = next;
    // A call whose log ended before its frame line came: what it writes now reaches no log.
    this.orphan = next ? null : { callId, told: false };
  }

  /** Ends the logs of the calls sent before `entry` (the map keeps them in the order they were sent). */
  private finishBefore(entry: Entry): void {
    for (const earlier of this.entries.values()) {
      if (earlier === entry) return;
      this.finish(earlier);
    }
  }

  /**
   * Ends the entry's log `ms` from now. A process held up past that time runs its timers before
   * it reads the output already waiting on its socket: the end waits for one read (setImmediate
   * runs after the poll phase), and a wait that overran by more than itself is given again, a
   * few times at most, so that a busy machine's stderr still reaches its call.
   */
  private waitFor(entry: Entry, ms: number): void {
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
        setImmediate(() => this.endDue());
      },
      Math.max(0, due - Date.now()),
    );
  }

  /** Ends the logs whose wait is over (or gives an overrun one its wait again); the timer then serves the next. */
  private endDue(): void {
    const now = Date.now();
    let next = 0;
    for (const entry of this.entries.values()) {
      if (entry.due === 0) continue;
      if (entry.due <= now) {
        if (now - entry.due > entry.waitMs && entry.rearmed < MOST_REARMS) {
          entry.rearmed += 1;
          entry.due = now + entry.waitMs;
        } else {
          this.endByBound(entry);
          continue;
        }
      }
      if (next === 0 || entry.due < next) next = entry.due;
    }
    if (next !== 0 && (this.timer === null || this.timerDue > next)) this.setTimer(next);
  }

  private endByBound(entry: Entry): void {
    if (this.framed) this.watch?.endedByBound();
    else if (this.framePrefix !== null) this.unframed = true;
    this.finish(entry);
  }

  private append(text: string): void {
    const entry = this.current;
    if (!entry) return this.lost();
    if (entry.bytes >= MAX_CALL_LOG_BYTES) return;
    const part =
      text.length + entry.bytes > MAX_CALL_LOG_BYTES ? text.slice(0, MAX_CALL_LOG_BYTES - entry.bytes) : text;
    entry.parts.push(part);
    entry.bytes += part.length;
  }

  /** Output of a framed call whose log has ended: told once per call. */
  private lost(): void {
    if (!this.framed || !this.orphan || this.orphan.told) return;
    this.orphan.told = true;
    this.watch?.outputAfterEnd(this.orphan.callId);
  }

  private finish(entry: Entry): void {
    if (this.current === entry) {
      if (this.partial !== '') this.append(this.partial);
      this.partial = '';
      this.current = null;
      if (this.framed) this.orphan = { callId: entry.callId, told: false };
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
