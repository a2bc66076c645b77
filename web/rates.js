// @ts-check
// Message rates of a queue, from its counters as the dashboard reads them: total_messages only grows
// (every post adds one), and size = posted - removed, so between two reads
//   in  = Δtotal_messages / Δt   and   out = in - Δsize / Δt   (deleted, expired or dead-lettered).
// Nothing is stored for this on the server; the samples live in this tab.

/** @typedef {{ time: number, total: number, size: number }} Sample */

/** How far back the rate looks: the oldest sample kept within this window. */
const WINDOW_MS = 60_000;
/** Reads closer together than this give no rate (a rate over a few milliseconds means nothing). */
const MIN_SPAN_MS = 1_000;

/** @type {Map<string, Sample[]>} */
const samples = new Map();

/**
 * Records one read of a queue and answers its rates per second, or null until two reads are far
 * enough apart. A queue that was deleted and made again (its total went down) starts over.
 * @param {string} key the project and queue
 * @param {{ total_messages?: number, size?: number }} queue
 * @param {number} [now]
 * @returns {{ in: number, out: number } | null}
 */
export function recordRates(key, queue, now = Date.now()) {
  const sample = { time: now, total: queue.total_messages, size: queue.size };
  const kept = (samples.get(key) || []).filter((s) => now - s.time <= WINDOW_MS && s.total <= sample.total);
  kept.push(sample);
  samples.set(key, kept);
  const oldest = kept[0];
  const span = sample.time - oldest.time;
  if (span < MIN_SPAN_MS) return null;
  const inRate = ((sample.total - oldest.total) * 1000) / span;
  const outRate = inRate - ((sample.size - oldest.size) * 1000) / span;
  return { in: inRate, out: Math.max(0, outRate) };
}

/** "1.5/s", "0/s", or "—" before a rate is known. @param {number | undefined} rate */
export function perSecond(rate) {
  if (rate === undefined) return '—';
  return `${rate >= 10 ? Math.round(rate) : Math.round(rate * 10) / 10}/s`;
}
