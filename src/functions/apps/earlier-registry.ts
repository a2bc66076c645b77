import type { RedisClient } from '../../core/redis.js';
import type { FunctionKeys } from '../keys.js';

/** App names read per step while walking the index. */
const BATCH = 200;

/**
 * Moves the apps and routes an earlier version kept under the one {fn} hash tag to their apps'
 * own tags ({fn:<app>}); run at start. Each key is copied (DUMP/RESTORE, never over a newer
 * one) and then dropped, routes first and the app record last, so an interrupted move resumes
 * on the next start. Returns how many apps were moved.
 */
export async function moveEarlierApps(redis: RedisClient, keys: FunctionKeys): Promise<number> {
  let moved = 0;
  let from = '-';
  for (;;) {
    const names = await redis.zrangebylex(keys.apps(), from, '+', 'LIMIT', 0, BATCH);
    if (names.length === 0) return moved;
    for (const name of names) if (await moveApp(redis, keys, name)) moved += 1;
    from = `(${names[names.length - 1]}`;
  }
}

async function moveApp(redis: RedisClient, keys: FunctionKeys, app: string): Promise<boolean> {
  const { earlier } = keys;
  if ((await redis.exists(earlier.app(app))) === 0) return false;
  for (const path of await redis.zrange(earlier.routes(app), 0, -1)) {
    await moveKey(redis, earlier.route(app, path), keys.route(app, path));
    await moveKey(redis, earlier.routeConfig(app, path), keys.routeConfig(app, path));
    await moveKey(redis, earlier.routeHeaders(app, path), keys.routeHeaders(app, path));
  }
  await moveKey(redis, earlier.routes(app), keys.routes(app));
  await moveKey(redis, earlier.appConfig(app), keys.appConfig(app));
  await moveKey(redis, earlier.app(app), keys.app(app));
  return true;
}

async function moveKey(redis: RedisClient, from: string, to: string): Promise<void> {
  const dumped = await redis.dumpBuffer(from);
  if (dumped) await redis.restore(to, 0, dumped).catch(keepNewer);
  await redis.del(from);
}

/** RESTORE refuses a key that exists (BUSYKEY): the newer copy is kept. */
function keepNewer(error: unknown): void {
  if (!(error instanceof Error && error.message.startsWith('BUSYKEY'))) throw error;
}
