import type { RedisClient } from '../../core/redis.js';
import type { FunctionKeys } from '../keys.js';
import { scripts } from '../scripts.js';
import type { Route } from '../types.js';

/** Formats whose containers stay up between calls. */
export function isHotFormat(format: string | null | undefined): boolean {
  return format === 'http' || format === 'json' || format === 'http-stream';
}

/** A route as the hot containers quota sees it. */
export type HotRoute = Pick<Route, 'appName' | 'path' | 'format' | 'maxConcurrency'>;

/** What a reservation wrote, to give it back if the save fails. */
export interface HotReservation {
  projectId: string;
  field: string;
  /** The value written ('' when the route is not hot and its entry was removed). */
  value: string;
  /** The value before ('' when none). */
  previous: string;
}

/** A reservation older than this whose route is missing or different is repaired from the route. */
const SAVE_GRACE_MS = 60_000;

/**
 * A project's hot containers per runner: the `max_concurrency` of its hot routes added up, the
 * count the `hot_containers` quota bounds. Each route save reserves its route's share in the
 * project's hash (reserve-hot-containers.lua) in the step that adds up the others, so racing
 * saves cannot pass the quota; a failed save gives it back and a deleted route takes its entry
 * out. An earlier release beside this one keeps no such hash, so each reservation first repairs
 * it from the project's routes as just read.
 */
export class HotContainerRoom {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
    private readonly graceMs = SAVE_GRACE_MS,
  ) {}

  /** Reserves `route`'s hot containers (none for a route that is not hot); null when over `quota`. */
  async reserve(projectId: string, route: HotRoute, quota: number): Promise<HotReservation | null> {
    const field = route.appName + route.path;
    const containers = isHotFormat(route.format) ? route.maxConcurrency : 0;
    const observed = await this.observed(projectId);
    const now = String(Date.now());
    const [reserved, previous] = await scripts.reserveHotContainers.run<[number, string | null]>(
      this.redis,
      [this.keys.projectHotContainers(projectId)],
      [field, containers, quota, now, this.graceMs, ...[...observed].flat()],
    );
    if (reserved !== 1) return null;
    return { projectId, field, value: containers > 0 ? `${containers}:${now}` : '', previous: previous ?? '' };
  }

  /** Gives a reservation back (its save failed), unless another save changed the entry meanwhile. */
  async release(reservation: HotReservation): Promise<void> {
    const { projectId, field, value, previous } = reservation;
    await scripts.releaseHotContainers.run(
      this.redis,
      [this.keys.projectHotContainers(projectId)],
      [field, value, previous],
    );
  }

  /** After a route was deleted. */
  async removed(projectId: string, app: string, path: string): Promise<void> {
    await this.redis.hdel(this.keys.projectHotContainers(projectId), app + path);
  }

  /** The project's hot routes as stored, `<app><path>` → their max_concurrency. */
  private async observed(projectId: string): Promise<Map<string, string>> {
    const apps = await this.redis.zrange(this.keys.projectApps(projectId), 0, -1);
    const perApp = await Promise.all(apps.map((app) => this.hotRoutesOf(projectId, app)));
    return new Map(perApp.flat());
  }

  /** One app's hot routes as `<app><path>`, max_concurrency pairs (none when the app is another project's). */
  private async hotRoutesOf(projectId: string, app: string): Promise<Array<[string, string]>> {
    if ((await this.redis.hget(this.keys.app(app), 'project_id')) !== projectId) return [];
    const paths = await this.redis.zrange(this.keys.routes(app), 0, -1);
    const routes = await Promise.all(
      paths.map((path) => this.redis.hmget(this.keys.route(app, path), 'format', 'max_concurrency')),
    );
    return routes.flatMap(([format, maxConcurrency], i): Array<[string, string]> => {
      const containers = Number(maxConcurrency ?? 0);
      return isHotFormat(format) && Number.isSafeInteger(containers) && containers > 0
        ? [[app + paths[i], String(containers)]]
        : [];
    });
  }
}
