import { pipeline, Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../../src/core/errors.js';
import type { ProjectBudget } from '../../src/core/project-budget.js';
import { KeyedSlots, type KeyedPacer } from '../../src/core/keyed-pacing.js';
import { routeFacts } from './route-facts.js';

export interface LargeBodySettings {
  /** A request body of at least this many bytes (declared, or read so far) is a large one. */
  thresholdBytes: number;
  /** Most large requests of one project read and handled at once by this controller (0: no bound). */
  perProject: number;
  /** Bytes per second of one project's large bodies this controller reads (0: no bound). */
  bytesPerSecond: number;
}

/** What the gate holds now: projects with a slot held or awaited, projects with bytes booked. */
export interface LargeBodyGateState {
  slotKeys: number;
  pacedKeys: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    releaseLargeBody: (() => void) | null;
  }
  interface FastifyInstance {
    largeBodyGate: () => LargeBodyGateState;
  }
}

interface Gate {
  settings: LargeBodySettings;
  slots: KeyedSlots;
  pacer: KeyedPacer | null;
  budget: Pick<ProjectBudget, 'turn'>;
}

/**
 * Takes one of the project's slots for the request (once), freed when it is answered or closed:
 * the listeners are on the few requests that hold a slot, not a hook every request runs.
 */
async function holdSlot(gate: Gate, request: FastifyRequest, reply: FastifyReply, project: string): Promise<void> {
  if (request.releaseLargeBody) return;
  const release = await gate.slots.acquire(project);
  request.releaseLargeBody = release;
  // Whichever comes first: the body read whole, the answer sent, or a client that gave up.
  request.raw.once('close', release);
  reply.raw.once('close', release);
}

/**
 * Passes a body on as it is read: once it is large (declared, or read so far) it holds one of
 * the project's slots, and each chunk is booked on the project's byte rate and waits its time,
 * so a chunked body counts like one with a length, then its turn of the event loop with the
 * background work (ProjectBudget.turn): under other tenants' requests on a busy loop, a large
 * body is read a slice at a time, their requests first.
 */
function meteredBody(
  gate: Gate,
  request: FastifyRequest,
  reply: FastifyReply,
  project: string,
  declared: number,
): Transform {
  let read = 0;
  let booked = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      read += chunk.length;
      if (Math.max(declared, read) < gate.settings.thresholdBytes) return callback(null, chunk);
      const bytes = read - booked;
      booked = read;
      const pass = () => gate.budget.turn(project, bytes).then(() => callback(null, chunk));
      holdSlot(gate, request, reply, project).then(() => {
        const wait = gate.pacer?.book(project, bytes) ?? 0;
        if (wait > 0) setTimeout(pass, wait);
        else void pass();
      }, callback);
    },
  });
}

const isMultipart = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/');

/**
 * The admission step of the request pipeline, a `preParsing` hook: it runs after every
 * `onRequest` hook (authentication, then the project's authorization), before a byte of the
 * body is read. A declared length over the route's limit is a 413 here. A body on an authorized
 * project's route is metered: one tenant's large bodies (cache values, message batches, uploads)
 * are read a few at a time per project and at most `bytesPerSecond` of them, because parsing
 * megabytes of JSON holds the event loop every tenant shares. A waiting body stays unread in the
 * socket (TCP pushes back on the sender). A request not yet authorized books nothing.
 */
export function installLargeBodyGate(app: FastifyInstance, settings: LargeBodySettings, budget: ProjectBudget): void {
  const gate: Gate = {
    settings,
    slots: new KeyedSlots(settings.perProject > 0 ? settings.perProject : Infinity),
    // The project's byte rate, which its background work (push hops) spends too.
    pacer: budget.pacer,
    budget,
  };
  const bounded = settings.perProject > 0 || gate.pacer !== null;
  app.decorate('largeBodyGate', () => ({ slotKeys: gate.slots.keys, pacedKeys: gate.pacer?.size ?? 0 }));
  app.decorateRequest('releaseLargeBody', null);
  app.addHook('preParsing', (request, reply, payload, done) => {
    const header = request.headers['content-length'];
    const limit = routeFacts(request).bodyLimit;
    const declared = header === undefined ? 0 : Number(header);
    if (declared > limit) return done(fail('body_too_large'));
    const project = request.project?.id;
    const streamed = header === undefined && request.headers['transfer-encoding'] !== undefined;
    if (!bounded || project === undefined || (declared < settings.thresholdBytes && !streamed)) {
      return done(null, payload);
    }
    if (isMultipart(request)) {
      // The multipart reader takes the socket itself: its bytes are booked as declared (or as
      // the route's limit when the length is not told) before it reads them.
      const bytes = streamed ? limit : declared;
      return void holdSlot(gate, request, reply, project).then(() => {
        const wait = gate.pacer?.book(project, bytes) ?? 0;
        setTimeout(() => done(null, payload), wait);
      });
    }
    done(
      null,
      pipeline(payload, meteredBody(gate, request, reply, project, declared), () => {}),
    );
  });
}
