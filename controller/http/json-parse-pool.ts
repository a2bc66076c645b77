import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BodyBytes, BodyBytesKind } from '../../api/body-bytes.js';
import { HttpError } from '../../src/core/errors.js';
import type { JsonBody } from './json-body.js';
import type { ParseJob, ParseOutcome } from './json-parse-thread.js';
import type { RawBody } from './raw-body.js';

/** A body parsed by the pool, and the parts its route takes as bytes (null: none asked, or not of its shape). */
export interface PooledBody extends JsonBody {
  bytes: BodyBytes | null;
}

interface Pending {
  job: ParseJob;
  resolve: (body: PooledBody) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  running: Pending | null;
}

/**
 * The parse thread's module. Compiled, it is the .js beside this one; run from the sources
 * (tests, benches under tsx) the thread loads the .ts through tsx's loader.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./json-parse-thread.js', here));
  const entry = new URL('./json-parse-thread.ts', here).href;
  // The loader's ES module build (require's resolution names its CommonJS build).
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const load = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  return new Worker(load, { eval: true });
}

/** A view the clone made a Uint8Array a Buffer again (no copy). */
const asBuffer = (view: Uint8Array) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

function outcomeToBody(outcome: ParseOutcome): PooledBody {
  if (outcome.ok) {
    const { value, empty, bytes } = outcome;
    return { value, empty, bytes: bytes && { parts: bytes.parts.map(asBuffer), size: bytes.size } };
  }
  if (outcome.statusCode === null) throw new Error(outcome.message);
  throw new HttpError(outcome.statusCode, outcome.message, outcome.code);
}

/**
 * The buffers of the job's chunks that hold nothing else, moved to the thread, not copied; a chunk
 * that shares its buffer (a view of a read buffer) is copied alone into one of its own first.
 */
function movedChunks(job: ParseJob): ArrayBuffer[] {
  const moved = new Set<ArrayBuffer>();
  job.chunks = job.chunks.map((chunk) => {
    const own =
      chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && !moved.has(chunk.buffer as ArrayBuffer);
    const sent = own && !(chunk.buffer instanceof SharedArrayBuffer) ? chunk : new Uint8Array(chunk);
    moved.add(sent.buffer as ArrayBuffer);
    return sent;
  });
  return [...moved];
}

/**
 * A few worker threads that join, decode and parse large JSON bodies off the event loop every
 * tenant shares, and work out the parts their route takes as bytes (api/body-bytes.ts); the value
 * comes back by structured clone, the bytes are moved. At most `maxQueued` bodies wait: past that
 * `parse` answers null and the caller parses on its own thread, as before the pool (the large-body
 * gate's slots already bound each project's bodies in flight). Threads start on first use.
 */
export class JsonParsePool {
  private readonly threads: Thread[] = [];
  private readonly waiting: Pending[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly maxQueued: number,
  ) {}

  /**
   * Parses `body` in a thread, and works out the parts `bodyBytes` names; null when too many
   * bodies wait already.
   */
  parse(body: RawBody, takesObject: boolean, bodyBytes: BodyBytesKind | null = null): Promise<PooledBody> | null {
    if (this.closed || this.waiting.length >= this.maxQueued) return null;
    return new Promise<PooledBody>((resolve, reject) => {
      const job = { id: this.nextId++, chunks: body.chunks, length: body.length, takesObject, bodyBytes };
      this.waiting.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const thread = this.idleThread();
      if (thread === null) return;
      const pending = this.waiting.shift()!;
      thread.running = pending;
      thread.worker.postMessage(pending.job, movedChunks(pending.job));
    }
  }

  private idleThread(): Thread | null {
    const idle = this.threads.find((thread) => thread.running === null);
    if (idle !== undefined) return idle;
    if (this.threads.length >= this.size) return null;
    const thread: Thread = { worker: startWorker(), running: null };
    thread.worker.unref();
    thread.worker.on('message', (outcome: ParseOutcome) => this.finish(thread, outcome));
    thread.worker.on('error', (error: Error) => this.fail(thread, error));
    thread.worker.on('exit', () => this.fail(thread, new Error('JSON parse thread exited')));
    this.threads.push(thread);
    return thread;
  }

  private finish(thread: Thread, outcome: ParseOutcome): void {
    const pending = thread.running;
    thread.running = null;
    if (pending !== null) {
      try {
        pending.resolve(outcomeToBody(outcome));
      } catch (error) {
        pending.reject(error as Error);
      }
    }
    this.dispatch();
  }

  /** A thread that failed is dropped (its job refused with the error); the next job starts another. */
  private fail(thread: Thread, error: Error): void {
    const index = this.threads.indexOf(thread);
    if (index < 0) return;
    this.threads.splice(index, 1);
    thread.running?.reject(error);
    thread.running = null;
    if (!this.closed) this.dispatch();
  }
}
