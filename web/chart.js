// Small SVG charts drawn from data, no library: stacked bars and a line, with text alternatives.

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 720;
const HEIGHT = 180;
const PAD = { left: 40, right: 10, top: 10, bottom: 24 };

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(child);
  return el;
}

function frame(title, max, labels) {
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': title, class: 'chart' });
  root.append(svg('title', {}, title));
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  for (const fraction of [0, 0.5, 1]) {
    const y = PAD.top + plotHeight * (1 - fraction);
    root.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: 'grid' }));
    root.append(
      svg(
        'text',
        { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' },
        String(Math.round(max * fraction)),
      ),
    );
  }
  labels.forEach(({ x, text }) =>
    root.append(svg('text', { x, y: HEIGHT - 6, 'text-anchor': 'middle', class: 'axis' }, text)),
  );
  return root;
}

const clock = (time) => new Date(time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** Stacked bars: `buckets` [{time, <series>: n}], `series` [{key, label, className}]. */
export function stackedBars(title, buckets, series) {
  const totals = buckets.map((b) => series.reduce((sum, s) => sum + (b[s.key] || 0), 0));
  const max = Math.max(1, ...totals);
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = plotWidth / Math.max(1, buckets.length);
  const labels = buckets
    .map((b, i) => ({ x: PAD.left + step * (i + 0.5), text: clock(b.time) }))
    .filter((_, i) => i % 15 === 0);
  const root = frame(title, max, labels);
  buckets.forEach((bucket, i) => {
    let top = PAD.top + plotHeight;
    for (const s of series) {
      const value = bucket[s.key] || 0;
      if (!value) continue;
      const height = (value / max) * plotHeight;
      top -= height;
      const rect = svg('rect', {
        x: PAD.left + step * i + 1,
        y: top,
        width: Math.max(1, step - 2),
        height,
        class: s.className,
      });
      rect.append(svg('title', {}, `${clock(bucket.time)}: ${value} ${s.label}`));
      root.append(rect);
    }
  });
  return root;
}

/** A line over time: `points` [{time, value}]. */
export function line(title, points) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const first = points.length ? new Date(points[0].time).getTime() : 0;
  const last = points.length ? new Date(points[points.length - 1].time).getTime() : 1;
  const span = Math.max(1, last - first);
  const x = (p) => PAD.left + ((new Date(p.time).getTime() - first) / span) * plotWidth;
  const y = (p) => PAD.top + plotHeight * (1 - p.value / max);
  const labels = points
    .filter((_, i) => i % Math.max(1, Math.ceil(points.length / 4)) === 0)
    .map((p) => ({ x: x(p), text: clock(p.time) }));
  const root = frame(title, max, labels);
  if (points.length > 0) {
    root.append(svg('polyline', { points: points.map((p) => `${x(p)},${y(p)}`).join(' '), class: 'series' }));
    for (const p of points) {
      const dot = svg('circle', { cx: x(p), cy: y(p), r: 2.5, class: 'dot' });
      dot.append(svg('title', {}, `${clock(p.time)}: ${p.value} messages`));
      root.append(dot);
    }
  }
  return root;
}
