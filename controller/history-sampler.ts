import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.js';
import { LeaderLoop } from '../src/core/leader-loop.js';
import type { MessageQueue } from '../src/mq/service.js';
import { ActivityHistory, type QueueDepthSample } from '../src/metrics/history.js';

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

/** On the leader controller, records every project's queue depth each FERRUM_HISTORY_SAMPLE_MS. */
export function startHistorySampler(ctx: AppContext, mq: MessageQueue, log: FastifyBaseLogger): LeaderLoop {
  const history = new ActivityHistory(ctx.redis, ctx.keys);
  const loop = new LeaderLoop({
    redis: ctx.redis,
    keys: ctx.keys,
    name: 'history-sampler',
    intervalMs: ctx.config.historySampleMs,
    log,
    leadership: ctx.metrics.leadership,
    work: async (isStopping) => {
      let after: string | undefined;
      do {
        const projectIds = await ctx.identity.projects.listProjectIds(after, PAGE);
        for (const projectId of projectIds) {
          await history.recordQueueDepth(projectId, await sampleQueueDepth(mq, projectId));
        }
        after = projectIds.length === PAGE ? projectIds[PAGE - 1] : undefined;
      } while (after && !isStopping());
    },
  });
  loop.start();
  return loop;
}
