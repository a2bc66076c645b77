/** The second whose RFC 3339 form (up to its dot) was made last: calls of one second share it. */
let madeSecond = Number.NaN;
let secondText = '';

/**
 * `ms` (epoch milliseconds) as RFC 3339 in UTC with milliseconds, as Date#toISOString gives it:
 * each hot call's Fn-Deadline. Only the milliseconds are formatted per call; a Date per call showed.
 */
export function deadlineText(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== madeSecond) {
    madeSecond = second;
    secondText = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const milli = ms - second * 1000;
  return `${secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
