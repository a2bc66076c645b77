import { EventLoopTurns } from './event-loop-turns.js';
import { KeyedPacer } from './keyed-pacing.js';

/** Most bytes of background work started in one turn of the event loop: one large message's worth. */
export const SLICE_BYTES = 64 * 1024;

export interface ProjectBudgetSettings {
  /** Bytes per second one project may make this process read or move (0: no bound). */
  bytesPerSecond: number;
  /** A quiet project's first bytes that pass at once. */
  burstBytes: number;
  /** Most bytes of background work started in one turn of the event loop (at least one piece). */
  sliceBytes: number;
}

/**
 * What one project may make this controller process, in bytes, whoever asks: its large request
 * bodies (the large-body gate) and every hop of the background work its messages cause (push
 * deliveries to HTTP, `ironmq:///` and `ironworker:///` subscribers) spend one byte rate per
 * project. A project past its rate waits; the others do not. Background work also starts in
 * slices, one turn of the event loop each, projects in turn (EventLoopTurns), so another
 * tenant's request never waits behind more than one slice of it.
 */
export class ProjectBudget {
  /** The byte rate, or null when unbounded. */
  readonly pacer: KeyedPacer | null;
  private readonly turns: EventLoopTurns;

  constructor(settings: ProjectBudgetSettings) {
    this.pacer = settings.bytesPerSecond > 0 ? new KeyedPacer(settings.bytesPerSecond, settings.burstBytes) : null;
    this.turns = new EventLoopTurns(settings.sliceBytes);
  }

  /** Books `bytes` of background work for `project`; resolves when it may start (its time, then its turn). */
  async spendInBackground(project: string, bytes: number): Promise<void> {
    const wait = this.pacer?.book(project, bytes) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await this.turns.next(project, bytes);
  }
}

/**
 * The budget of FERRUM_LARGE_BODY_BYTES_PER_SECOND: a quiet project's first quarter second of
 * bytes (at least one large body) passes at once.
 */
export function projectBudgetOf(largeBodies: { thresholdBytes: number; bytesPerSecond: number }): ProjectBudget {
  const { thresholdBytes, bytesPerSecond } = largeBodies;
  return new ProjectBudget({
    bytesPerSecond,
    burstBytes: Math.max(thresholdBytes, bytesPerSecond / 4),
    sliceBytes: SLICE_BYTES,
  });
}
