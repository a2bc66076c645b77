import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../../controller/http/json-body.js';
import { encodeValue } from '../../../src/cache/item-rules.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';

// A tenant's megabyte bodies (cache values, message batches) were decoded and parsed on the event
// loop every tenant shares: each held it for tens of milliseconds, and every other tenant's
// request waited behind it (bench:isolation's storage flood). JSON bodies from 64 KiB on are
// joined and parsed by a worker thread (controller/http/content-types.ts), which also encodes what
// the route stores (api/body-bytes.ts); the answers must not change.
const server = useTestServer();
const tenant = useTenant(server, 'large-json');

/** Text a parser must get right: multi-byte characters, a pair, escapes, and JSON's own quotes. */
const PIECE = 'é ☃ 😀 "q" \\ / \n\t\u2028 \u0001 ';
/**
 * Where a body's text holds `\u` escapes of `RUN` (the test writes them in after JSON.stringify):
 * slow to parse, quick to write again, so the parse's share of the loop stands out on a busy machine.
 */
const MARK = '<escaped run>';
const RUN = 'é'.repeat(6_000);
const ESCAPED_RUN = '\\u00e9'.repeat(6_000);

/** `value` as JSON text with its escaped runs, and `value` as a parser must read it. */
function withEscapedRuns<T>(value: T): { text: string; expected: T } {
  const text = JSON.stringify(value);
  return { text: text.replaceAll(MARK, ESCAPED_RUN), expected: JSON.parse(text.replaceAll(MARK, RUN)) as T };
}

/** A message post of about 5.5 MB: 150 messages, each with an escaped run. */
function messagePost() {
  return withEscapedRuns({
    messages: Array.from({ length: 150 }, (_, i) => ({ body: `${i}:${PIECE.repeat(40)}${MARK}`, delay: 0 })),
  });
}

/** A cache put of about 1 MB (the largest a cache takes by default is 1 MiB of value). */
function cachePut() {
  return withEscapedRuns({ value: `${PIECE.repeat(1_000)}${MARK.repeat(25)}`, expires_in: 3600 });
}

/** Most sends of one body before its figures count (each ends the search once it shows the difference). */
const ATTEMPTS = 20;

interface LoopFigures {
  /** The longest the event loop was held while the request ran (a 1 ms timer's greatest lateness). */
  heldMs: number;
  /** The same body joined, decoded and parsed on this thread: what the request held the loop for before. */
  parseMs: number;
  /** The handler's work on the value before (`handle`: writing and encoding what it stores), now the thread's too. */
  handleMs: number;
}

/**
 * The request's loop figures. It is sent until a quiet moment of the machine shows the
 * difference (at most ATTEMPTS times); a loop still held for the parse never shows it. The
 * lateness is wall-clock time: on a loaded machine the process is also held by the scheduler,
 * which 6 attempts of a 1 MB put did not always escape in a CI run.
 */
async function loopHeldWhile(
  send: () => Promise<number>,
  body: Buffer,
  handle: (value: unknown) => unknown = () => undefined,
): Promise<LoopFigures> {
  const figures: LoopFigures[] = [];
  const shows = (f: LoopFigures) => f.heldMs < (f.handleMs + f.parseMs) / 2;
  for (let attempt = 0; attempt < ATTEMPTS && !figures.some(shows); attempt++) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    expect(await send()).toBeLessThan(300);
    delay.disable();
    const started = performance.now();
    const { value } = parseJsonBody(Buffer.concat([body]).toString('utf8'), true);
    const parsed = performance.now();
    handle(value);
    figures.push({ heldMs: delay.max / 1e6, parseMs: parsed - started, handleMs: performance.now() - parsed });
  }
  return figures.find(shows) ?? figures[figures.length - 1]!;
}

function expectParseOffTheLoop(figures: LoopFigures): void {
  const { heldMs, parseMs, handleMs } = figures;
  const said = `loop held ${heldMs} ms; here the parse takes ${parseMs} ms, the encoding after it ${handleMs} ms`;
  expect(heldMs, said).toBeLessThan((handleMs + parseMs) / 2);
}

describe('large JSON bodies', () => {
  it('a message post of several MB is stored as sent, without holding the event loop for its parse', async () => {
    const queue = `/3/projects/${tenant.projectId}/queues/big/messages`;
    const post = messagePost();
    const body = Buffer.from(post.text);
    expect(body.length).toBeGreaterThan(4 * 1024 * 1024);
    const send = async () => {
      const answer = await tenant.http.postRaw(queue, body, 'application/json');
      return answer.status;
    };
    // Before, the queue then encoded the bodies for Redis on this thread.
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value));
    expectParseOffTheLoop(await loopHeldWhile(send, body, encode));
    const reserved = await tenant.http.post(`/3/projects/${tenant.projectId}/queues/big/reservations`, { n: 100 });
    expect(reserved.status).toBe(200);
    const bodies = (reserved.body.messages as Array<{ body: string }>).map((message) => message.body);
    expect(bodies.slice(0, 100)).toEqual(post.expected.messages.slice(0, 100).map((message) => message.body));
  });

  it('a cache value of 1 MB is stored as sent, without holding the event loop for its parse', async () => {
    const item = `/1/projects/${tenant.projectId}/caches/big/items/wide`;
    const put = cachePut();
    const body = Buffer.from(put.text);
    expect(body.length).toBeGreaterThan(512 * 1024);
    const send = async () => (await tenant.http.put(item, undefined, { raw: body, headers: json })).status;
    // Before, the cache then wrote the value as JSON text, and encoded it for Redis, on this thread.
    const encode = (value: unknown) => Buffer.from(encodeValue((value as { value: string }).value, 2 * body.length));
    expectParseOffTheLoop(await loopHeldWhile(send, body, encode));
    expect((await tenant.http.get(item)).body.value).toBe(put.expected.value);
  });

  it('a malformed large body gets the 400 a small one gets, with the same parser message', async () => {
    const { text } = messagePost();
    for (const broken of [`${text.slice(0, -2)}`, `${text.slice(0, 3_000_000)}\u0007${text.slice(3_000_000)}`]) {
      const answer = await tenant.http.postRaw(
        `/3/projects/${tenant.projectId}/queues/big/messages`,
        Buffer.from(broken),
        'application/json',
      );
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ msg: messageOf(() => parseJsonBody(broken, true)) });
      expect(answer.body.msg).toMatch(/^Invalid JSON body: /);
    }
  });

  it('keeps the prototype-poisoning protection: a large body is answered as the same small one', async () => {
    const item = `/1/projects/${tenant.projectId}/caches/big/items/poisoned`;
    const poisoned = (value: string) =>
      `{"value": "${value}", "__proto__": {"expires_in": 1}, "replace": {"constructor": {"prototype": {}}}}`;
    const small = await tenant.http.put(item, undefined, { raw: poisoned('v'), headers: json });
    const large = await tenant.http.put(item, undefined, {
      raw: Buffer.from(poisoned('v'.repeat(200_000))),
      headers: json,
    });
    expect(large.status).toBe(small.status);
    expect(large.body).toEqual(small.body);
  });
});

const json = { 'Content-Type': 'application/json' };

function messageOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the parse to fail');
}
