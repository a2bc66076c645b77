import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../api/context.js';
import type { Config } from '../src/core/config.js';
import { LeaderLoop, type LoopLogger } from '../src/core/leader-loop.js';

/** What a loop's `start` is given. */
export interface LoopEnv {
  ctx: AppContext;
  log: FastifyBaseLogger;
  /** This controller as its clients reach it (internal push calls, launched runners' API). */
  publicUrl: string;
}

/** One pass of a loop; `isStopping()` turns true once the loop stops, to end long passes early. */
export type Pass = (isStopping: () => boolean) => Promise<void>;

/** What a leader loop's `start` builds: its pass, and what to tell or close around it. */
export interface LeaderWork {
  pass: Pass;
  /** Logs the loop's failing and recovery (the controller's logger when absent). */
  log?: LoopLogger;
  /** Told after each try for the lease whether this controller holds it. */
  onLeadership?(held: boolean): void;
  /** Closes what `start` opened, after the last pass. */
  close?(): void;
}

export interface Stoppable {
  stop(): Promise<void> | void;
}

interface LoopRowBase {
  /** The loop's name in logs, and its lease's (`lease:<name>`) when it has one. */
  name: string;
  /** The time between passes (0 turns the loop off), or null when events drive it. */
  intervalMs(config: Config): number | null;
}

/**
 * One row of the loop table (controller/loops.ts). `lease` says who runs it:
 * - 'leader': one controller at a time: the runner takes the lease and runs `pass` every interval;
 * - 'self': one controller at a time too, but the service holds its lease itself;
 * - 'none': every controller.
 */
export type LoopRow =
  | (LoopRowBase & { lease: 'leader'; start(env: LoopEnv): LeaderWork | Promise<LeaderWork> })
  | (LoopRowBase & { lease: 'self' | 'none'; start(env: LoopEnv): Stoppable | Promise<Stoppable> });

export interface RunningLoops {
  /** Stops every loop together; resolves when their passes are over and their leases released. */
  stop(): Promise<void>;
}

/** Starts the loops of `rows` in order; when one fails to start, those already started stop. */
export async function startLoops(rows: readonly LoopRow[], env: LoopEnv): Promise<RunningLoops> {
  const running: Stoppable[] = [];
  const stop = async () => {
    await Promise.all(running.splice(0).map((loop) => loop.stop()));
  };
  try {
    for (const row of rows)
      running.push(row.lease === 'leader' ? await startLeaderLoop(row, env) : await row.start(env));
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}

async function startLeaderLoop(
  row: LoopRowBase & { start(env: LoopEnv): LeaderWork | Promise<LeaderWork> },
  env: LoopEnv,
) {
  const { ctx } = env;
  const work = await row.start(env);
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: row.name,
    intervalMs: row.intervalMs(ctx.config) ?? 0,
    log: work.log ?? env.log,
    leadership: {
      report(name, held) {
        ctx.metrics.leadership.report(name, held);
        work.onLeadership?.(held);
      },
    },
    work: work.pass,
  });
  loop.start();
  return {
    async stop() {
      await loop.stop();
      work.close?.();
    },
  };
}
