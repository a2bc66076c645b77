import type { MessageQueue } from '../../src/mq/message-queue.js';
import type { QueueDepthSample } from '../../src/metrics/history.js';
import type { LeaderWork, LoopEnv } from '../loop-runner.js';

const PAGE = 100;
const TOP_QUEUES = 5;

/** Queue depth of one project now: the total and its deepest queues. */
export async function sampleQueueDepth(
  mq: MessageQueue,
  projectId: string,
  now = Date.now(),
): Promise<QueueDepthSample> {
  const sizes: Array<[string, number]> = [];
  let previous: string | undefined;
  for (;;) {
    const names = await mq.queues.list(projectId, { perPage: PAGE, previous });
    const infos = await Promise.all(names.map((name) => mq.queues.info({ projectId, name })));
    infos.forEach((info, i) => info && sizes.push([names[i]!, info.size]));
    if (names.length < PAGE) break;
    previous = names[names.length - 1];
  }
  const top = [...sizes].sort((a, b) => b[1] - a[1]).slice(0, TOP_QUEUES);
  return { time: now, total: sizes.reduce((sum, [, size]) => sum + size, 0), queues: Object.fromEntries(top) };
}

/** The loop table's history-sampler pass: every project's queue depth, each FERRUM_HISTORY_SAMPLE_MS. */
export function historySamplerWork({ ctx }: LoopEnv): LeaderWork {
  return {
    pass: async (isStopping) => {
      let after: string | undefined;
      do {
        const projectIds = await ctx.identity.projects.listProjectIds(after, PAGE);
        for (const projectId of projectIds) {
          await ctx.history.recordQueueDepth(projectId, await sampleQueueDepth(ctx.mq, projectId));
        }
        after = projectIds.length === PAGE ? projectIds[PAGE - 1] : undefined;
      } while (after && !isStopping());
    },
  };
}
