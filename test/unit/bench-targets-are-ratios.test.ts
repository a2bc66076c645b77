import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTarget, RATIO_UNITS } from '../../bench/lib/report.js';

// Absolute figures do not carry from one machine to another (issue 48): every bench target is a
// ratio to a floor or a reference measured in the same run, and says which.
const ROOT = path.resolve(import.meta.dirname, '../..');

function benchSources(): [string, string][] {
  return fs
    .readdirSync(path.join(ROOT, 'bench'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => [path.relative(ROOT, file), fs.readFileSync(file, 'utf8')]);
}

/** The end of the string literal opening at `start` ('…', "…" or `…` with ${…} inside). */
function endOfString(source: string, start: number): number {
  const quote = source[start]!;
  for (let at = start + 1; at < source.length; at++) {
    if (source[at] === '\\') at++;
    else if (source[at] === quote) return at + 1;
    else if (quote === '`' && source.startsWith('${', at)) at = endOfGroup(source, at + 1) - 1;
  }
  return source.length;
}

/** The end of the bracketed group opening at `start`, string literals skipped. */
function endOfGroup(source: string, start: number): number {
  let depth = 0;
  for (let at = start; at < source.length; at++) {
    const char = source[at]!;
    if (char === "'" || char === '"' || char === '`') at = endOfString(source, at) - 1;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && --depth === 0) return at + 1;
  }
  return source.length;
}

/** The top-level arguments of the call whose parenthesis opens at `open`. */
function argumentsOf(source: string, open: number): string[] {
  const inner = source.slice(open + 1, endOfGroup(source, open) - 1);
  const parts: string[] = [];
  let from = 0;
  for (let at = 0; at < inner.length; at++) {
    const char = inner[at]!;
    if (char === "'" || char === '"' || char === '`') at = endOfString(inner, at) - 1;
    else if ('([{'.includes(char)) at = endOfGroup(inner, at) - 1;
    else if (char === ',') {
      parts.push(inner.slice(from, at).trim());
      from = at + 1;
    }
  }
  parts.push(inner.slice(from).trim());
  return parts.filter(Boolean);
}

/** Each `figure(…)` call of the benches that sets a target: where, its unit and its options. */
function targetedFigures(): { where: string; unit: string; options: string }[] {
  return benchSources().flatMap(([file, source]) =>
    [...source.matchAll(/\bfigure\(/g)].flatMap((match) => {
      const [, , unit = '', options = ''] = argumentsOf(source, match.index + 'figure'.length);
      if (!/\btarget\b/.test(options)) return [];
      const line = source.slice(0, match.index).split('\n').length;
      return [{ where: `${file}:${line}`, unit, options }];
    }),
  );
}

describe('bench targets', () => {
  it('are set on ratios only, each naming its reference', () => {
    const figures = targetedFigures();
    expect(figures.length).toBeGreaterThan(20);
    const ratioUnit = new RegExp(`^'(${RATIO_UNITS.join('|')})'$`);
    const absolute = figures.filter(({ unit }) => !ratioUnit.test(unit)).map(({ where, unit }) => `${where}: ${unit}`);
    expect(absolute).toEqual([]);
    const unnamed = figures.filter(({ options }) => !/\breference\b/.test(options)).map(({ where }) => where);
    expect(unnamed).toEqual([]);
  });

  it('are stated as ratios in what the benches print', () => {
    const absoluteText = /target[^\n]{0,24}?(<=|>=|≤|≥|<|>|at most|at least)\s*[\d.,]+\s*(ms|µs|s|[a-z]+\/s)\b/gi;
    const stated = benchSources().flatMap(([file, source]) =>
      [...source.matchAll(absoluteText)].map((match) => `${file}: ${match[0]}`),
    );
    expect(stated).toEqual([]);
  });

  it('in ms or ops/s are refused when a bench reports one', () => {
    expect(() => checkTarget('post p99', 'ms', { better: 'lower', target: 5 })).toThrow(/absolute/);
    expect(() => checkTarget('produce', 'msg/s', { better: 'higher', target: 40_000, reference: 'RabbitMQ' })).toThrow(
      /absolute/,
    );
    expect(() => checkTarget('post p99 / floor', 'x', { better: 'lower', target: 1.2 })).toThrow(/reference/);
    expect(() =>
      checkTarget('post p99 / floor', 'x', { better: 'lower', target: 1.2, reference: 'the floor, same run' }),
    ).not.toThrow();
    expect(() => checkTarget('post p99', 'ms', { better: 'lower', goal: 5 })).not.toThrow();
  });
});
