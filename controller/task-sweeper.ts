import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.js';
import { LeaderLoop } from '../src/core/leader-loop.js';
import { TaskSweeper } from '../src/worker/tasks/task-sweeper.js';

export interface RunningTaskSweeper {
  sweeper: TaskSweeper;
  stop(): Promise<void>;
}

/**
 * On the leader controller, every FERRUM_TASK_SWEEP_MS: drops tasks past their retention,
 * dispatches tasks whose BullMQ job was never added and ends runs no runner runs any more.
 */
export function startTaskSweeper(ctx: AppContext, log: FastifyBaseLogger): RunningTaskSweeper {
  const { worker } = ctx;
  const sweeper = new TaskSweeper(ctx.redis, worker.keys, worker.taskStore, worker.tasks, {
    listProjectIds: (after, count) => ctx.identity.projects.listProjectIds(after, count),
    dispatchGraceMs: ctx.config.worker.dispatchGraceMs,
    endIfLost: (task) => worker.runnerTasks.endIfLost(task, log),
  });
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: 'task-sweeper',
    intervalMs: ctx.config.worker.taskSweepMs,
    log,
    leadership: ctx.metrics.leadership,
    work: (isStopping) => sweeper.pass(isStopping),
  });
  loop.start();
  return {
    sweeper,
    async stop() {
      await loop.stop();
    },
  };
}
