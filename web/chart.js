// @ts-check
// Small SVG charts drawn from data, no library: stacked bars and a line over one time range,
// with "nice" gridlines each labelled with its own value, and text alternatives.
import { niceTicks } from './ticks.js';

/** @typedef {{ from: number, to: number }} TimeRange milliseconds since the epoch */

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 720;
const HEIGHT = 180;
const PAD = { left: 40, right: 10, top: 10, bottom: 24 };
const PLOT_WIDTH = WIDTH - PAD.left - PAD.right;
const PLOT_HEIGHT = HEIGHT - PAD.top - PAD.bottom;
/** Time labels along the x axis. */
const TIME_LABELS = 4;

/** @param {string} tag @param {Record<string, string | number>} attrs @param {(Node | string)[]} children */
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(child);
  return el;
}

const clock = (/** @type {number} */ time) =>
  new Date(time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** The x of a time in the range. @param {TimeRange} range @param {number} time */
const xOf = (range, time) => PAD.left + ((time - range.from) / Math.max(1, range.to - range.from)) * PLOT_WIDTH;

/** The chart's frame: gridlines at the nice ticks for `max`, time labels across `range`. Returns y(value). */
function frame(/** @type {string} */ title, /** @type {number} */ max, /** @type {TimeRange} */ range) {
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': title, class: 'chart' });
  root.append(svg('title', {}, title));
  const { top, ticks } = niceTicks(max);
  const y = (/** @type {number} */ value) => PAD.top + PLOT_HEIGHT * (1 - value / top);
  for (const tick of ticks) {
    root.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(tick), y2: y(tick), class: 'grid' }));
    root.append(
      svg('text', { x: PAD.left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'axis y-tick' }, String(tick)),
    );
  }
  for (let i = 0; i <= TIME_LABELS; i++) {
    const time = range.from + ((range.to - range.from) * i) / TIME_LABELS;
    const anchor = i === 0 ? 'start' : i === TIME_LABELS ? 'end' : 'middle';
    root.append(svg('text', { x: xOf(range, time), y: HEIGHT - 6, 'text-anchor': anchor, class: 'axis' }, clock(time)));
  }
  return { root, y };
}

/**
 * Stacked bars over `range`: `buckets` [{time, <series>: n}] each `bucketMs` wide, `series` [{key, label, className}].
 * @param {string} title @param {({ time: string } & Record<string, any>)[]} buckets
 * @param {{ key: string, label: string, className: string }[]} series @param {TimeRange} range @param {number} bucketMs
 */
export function stackedBars(title, buckets, series, range, bucketMs) {
  const totals = buckets.map((b) => series.reduce((sum, s) => sum + (b[s.key] || 0), 0));
  const { root, y } = frame(title, Math.max(0, ...totals), range);
  const width = Math.max(1, xOf(range, range.from + bucketMs) - PAD.left - 2);
  buckets.forEach((bucket) => {
    const time = new Date(bucket.time).getTime();
    let stacked = 0;
    for (const s of series) {
      const value = bucket[s.key] || 0;
      if (!value) continue;
      const rect = svg('rect', {
        x: xOf(range, time) + 1,
        y: y(stacked + value),
        width,
        height: y(stacked) - y(stacked + value),
        class: s.className,
      });
      stacked += value;
      rect.append(svg('title', {}, `${clock(time)}: ${value} ${s.label}`));
      root.append(rect);
    }
  });
  return root;
}

/**
 * A line over `range`: `points` [{time, value}].
 * @param {string} title @param {{ time: string, value: number }[]} points @param {TimeRange} range
 */
export function line(title, points, range) {
  const { root, y } = frame(title, Math.max(0, ...points.map((p) => p.value)), range);
  const x = (/** @type {{ time: string }} */ p) => xOf(range, new Date(p.time).getTime());
  if (points.length > 0) {
    root.append(svg('polyline', { points: points.map((p) => `${x(p)},${y(p.value)}`).join(' '), class: 'series' }));
    for (const p of points) {
      const dot = svg('circle', { cx: x(p), cy: y(p.value), r: 2.5, class: 'dot' });
      dot.append(svg('title', {}, `${clock(new Date(p.time).getTime())}: ${p.value} messages`));
      root.append(dot);
    }
  }
  return root;
}
