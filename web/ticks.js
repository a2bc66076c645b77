// @ts-check
// "Nice" axis values for counts: steps of 1, 2 or 5 times a power of ten, whole numbers only,
// the axis topped at the first tick at or above the largest value.

/** Ticks wanted on an axis, about. */
const TARGET_TICKS = 4;

/**
 * @param {number} max the largest value shown (0 or less: an empty chart, which reads 0…1)
 * @returns {{ top: number, ticks: number[] }}
 */
export function niceTicks(max) {
  const highest = Math.max(1, Math.ceil(max));
  const rough = highest / TARGET_TICKS;
  const power = 10 ** Math.floor(Math.log10(Math.max(1, rough)));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power);
  const top = Math.ceil(highest / step) * step;
  const ticks = [];
  for (let value = 0; value <= top; value += step) ticks.push(value);
  return { top, ticks };
}
