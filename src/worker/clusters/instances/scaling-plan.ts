import type { AutoscaleSettings } from '../cluster-types.js';

/** Below this the smoothed demand counts as none, so an idle cluster can reach zero instances. */
const EWMA_FLOOR = 0.05;

/** Exponentially weighted moving average of demand (runners wanted), rounded to 3 decimals. */
export function nextEwma(previous: number, demand: number, alpha: number): number {
  const ewma = alpha * demand + (1 - alpha) * previous;
  return ewma < EWMA_FLOOR ? 0 : Math.round(ewma * 1000) / 1000;
}

/** Instances the cluster should have for a smoothed demand, within runners_min and runners_max. */
export function wantedInstances(ewma: number, settings: AutoscaleSettings): number {
  const perInstance = settings.runners_per_instance;
  const fewest = Math.ceil(settings.runners_min / perInstance);
  const largest = Math.max(fewest, Math.floor(settings.runners_max / perInstance));
  return Math.min(largest, Math.max(fewest, Math.ceil(ewma / perInstance)));
}

export interface ScalingDecision {
  launch: number;
  retire: number;
  /** When the surplus began (ms), 0 when there is none: kept for the next pass. */
  surplusSince: number;
}

/**
 * Launches at once when demand exceeds the instances; retires one instance at a time, and only
 * after the surplus has lasted `cooldownMs` (hysteresis: a short lull does not retire anything).
 */
export function decideScaling(input: {
  wanted: number;
  current: number;
  surplusSince: number;
  now: number;
  cooldownMs: number;
}): ScalingDecision {
  const { wanted, current, now, cooldownMs } = input;
  if (wanted > current) return { launch: wanted - current, retire: 0, surplusSince: 0 };
  if (wanted === current) return { launch: 0, retire: 0, surplusSince: 0 };
  const surplusSince = input.surplusSince || now;
  if (now - surplusSince < cooldownMs) return { launch: 0, retire: 0, surplusSince };
  // Counting restarts after a retirement, so the next one waits a cooldown again.
  return { launch: 0, retire: 1, surplusSince: now };
}
