import http from 'node:http';
import fc from 'fast-check';
import type { RouteEntry } from '../../../controller/http/route-list.js';
import { scaled } from '../pace.js';
import { requestsFor, type Caller, type GeneratedRequest, type RequestPools } from './route-requests.js';

/** An answer to a generated request: status, body text, and how long it took. */
export interface TimedAnswer {
  status: number;
  text: string;
  ms: number;
}

/** Where and as whom requests go. */
export interface FuzzTarget {
  /** The main listener, and the functions' own (FERRUM_FUNCTIONS_PORT). */
  baseUrl: string;
  functionsUrl: string;
  tokens: Record<Caller, string | null>;
}

/** The longest an answer may take (2 s on an idle machine, scaled to this one); a function call may also run its 1 s route. */
export const ANSWER_BOUND_MS = scaled(2000);
const CALL_ALLOWANCE_MS = scaled(1500);

/** Statuses of 500 and more that a route may give by design: a function call's failed (502) or timed-out (504) run. */
function documentedServerStatuses(path: string): number[] {
  return path.startsWith('/r/') ? [502, 504] : [];
}

/**
 * Sends one request on a connection of its own (raw header bytes, bodies on any method), timing
 * the answer. An answer that came before the server stopped reading (a refused large body) counts.
 */
export function send(url: string, request: GeneratedRequest, token: string | null): Promise<TimedAnswer> {
  const started = performance.now();
  const headers: Record<string, string> = { ...request.headers };
  if (token) headers.Authorization = token.startsWith('runner_') ? `Bearer ${token}` : `OAuth ${token}`;
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url + request.path, { method: request.method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      response.on('error', reject);
    });
    // A hung request still ends the test: after three times the bound it counts as no answer.
    outgoing.setTimeout(3 * ANSWER_BOUND_MS, () =>
      outgoing.destroy(new Error(`no answer in ${3 * ANSWER_BOUND_MS} ms`)),
    );
    outgoing.on('error', (error: Error & { rawPacket?: Buffer }) => {
      const early = error.rawPacket && answerBeforeParsing(error.rawPacket);
      if (early) resolve({ ...early, ms: performance.now() - started });
      else reject(error);
    });
    outgoing.end(request.body);
  });
}

/**
 * The answer to a request the server refused before parsing it (headers too large): it cannot
 * know the method, so a HEAD gets the body too, which Node's client then fails to parse.
 */
function answerBeforeParsing(raw: Buffer): { status: number; text: string } | null {
  const text = raw.toString('utf8');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
  if (!status) return null;
  return { status: Number(status), text: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

/** The error body every 4xx carries: {"msg"} or, from the functions API and calls, {"error":{"message"}}. */
function hasErrorBody(text: string): boolean {
  try {
    const body = JSON.parse(text) as { msg?: unknown; error?: { message?: unknown } };
    return typeof body.msg === 'string' || typeof body.error?.message === 'string';
  } catch {
    return false;
  }
}

/** What is wrong with an answer, or null: a 5xx not documented, a slow answer, a 4xx without its error body. */
export function answerProblem(request: GeneratedRequest, answer: TimedAnswer): string | null {
  const bound = ANSWER_BOUND_MS + (request.path.startsWith('/r/') ? CALL_ALLOWANCE_MS : 0);
  if (answer.status >= 500 && !documentedServerStatuses(request.path).includes(answer.status))
    return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.ms > bound) return `answered after ${Math.round(answer.ms)} ms (bound ${bound} ms)`;
  if (answer.status >= 400 && answer.status < 500 && request.method !== 'HEAD' && !hasErrorBody(answer.text))
    return `answered ${answer.status} without an error body: ${answer.text.slice(0, 300)}`;
  return null;
}

/** How hard each route is tried: FERRUM_FUZZ_RUNS runs (default 30), and never longer than FERRUM_FUZZ_ROUTE_MS. */
export const FUZZ_RUNS = Number(process.env.FERRUM_FUZZ_RUNS ?? 30);
const ROUTE_TIME_LIMIT_MS = Number(process.env.FERRUM_FUZZ_ROUTE_MS ?? scaled(4000));

/** The seed of this run: FERRUM_FUZZ_SEED replays one; printed with every failure. */
export const FUZZ_SEED = process.env.FERRUM_FUZZ_SEED
  ? Number(process.env.FERRUM_FUZZ_SEED)
  : Date.now() ^ (Math.random() * 2 ** 31);

function describeRequest(request: GeneratedRequest): string {
  const body = request.body ? ` body(${request.body.length} bytes)=${request.body.toString('utf8').slice(0, 200)}` : '';
  return `${request.method} ${request.path.slice(0, 300)} as ${request.caller} headers=${JSON.stringify(request.headers)}${body}`;
}

/**
 * Generated requests to `route` as the given callers; throws, naming the seed, the first
 * (shrunk) request whose answer breaks a rule. Function calls go to both listeners.
 */
export async function fuzzRoute(
  route: RouteEntry,
  target: FuzzTarget,
  pools: RequestPools,
  callers: Caller[],
  numRuns = FUZZ_RUNS,
): Promise<void> {
  const onFunctionsPort = route.url.startsWith('/r/') ? fc.boolean() : fc.constant(false);
  const property = fc.asyncProperty(requestsFor(route, pools, callers), onFunctionsPort, async (request, functions) => {
    const answer = await send(functions ? target.functionsUrl : target.baseUrl, request, target.tokens[request.caller]);
    const problem = answerProblem(request, answer);
    // FERRUM_FUZZ_TRACE=1 prints every request and its answer (what the generator reaches).
    if (process.env.FERRUM_FUZZ_TRACE)
      console.log(
        `${describeRequest(request)} => ${answer.status} in ${Math.round(answer.ms)} ms ${answer.text.slice(0, 100)}`,
      );
    if (problem) throw new Error(`${describeRequest(request)}: ${problem}`);
  });
  const details = await fc.check(property, {
    numRuns,
    seed: FUZZ_SEED,
    interruptAfterTimeLimit: ROUTE_TIME_LIMIT_MS,
    markInterruptAsFailure: false,
  });
  if (details.failed) {
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${String(route.method)} ${route.url}: ${cause}\n(replay: FERRUM_FUZZ_SEED=${details.seed}, path ${details.counterexamplePath})`,
    );
  }
}
