import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/DESIGN.md's "Find your way" tables name files, functions and methods: each named file
// must exist and each name must occur in the file named before it in the same cell, so that a
// rename or a move cannot leave the map wrong without a failing test.
const ROOT = path.resolve(import.meta.dirname, '../..');
const APIS = [
  'Identity',
  'Cache',
  'Message queue v3',
  'Message queue v1',
  'Worker v2',
  'Runner API',
  'Functions management',
  'Function calls',
];

interface MapRow {
  api: string;
  endpoint: string;
  /** The code spans of the handler, domain call and Lua cells, in order. */
  cells: string[][];
}

/** The code spans of a Markdown table cell: `x`, or ``x`` when x itself holds a backtick. */
function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/``\s?(.*?)\s?``(?!`)|`([^`\n]+)`/g)].map((match) => (match[1] ?? match[2])!);
}

/** The rows of every table under "## Find your way", each with the heading of its API. */
function mapRows(design: string): MapRow[] {
  const start = design.indexOf('\n## Find your way');
  if (start < 0) return [];
  const next = design.indexOf('\n## ', start + 1);
  const section = design.slice(start, next < 0 ? undefined : next);
  const rows: MapRow[] = [];
  let api = '';
  for (const line of section.split('\n')) {
    const heading = /^### (.+?)(?: \(.*\))?$/.exec(line);
    if (heading) api = heading[1]!;
    if (!line.startsWith('|') || /^\|[-| ]+\|$/.test(line) || line.startsWith('| endpoint')) continue;
    const [endpoint, ...rest] = line.split('|').slice(1, -1);
    rows.push({ api, endpoint: endpoint!.trim(), cells: rest.map(codeSpans) });
  }
  return rows;
}

const FILE = /^[\w./-]+\.(?:ts|lua|js)$/;
const CLASS_METHOD = /^([A-Z][\w$]*)\.([A-Za-z_$][\w$]*)$/;
const NAME = /^[A-Za-z_$][\w$]*(?:\(\))?$/;

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `name` is declared or called in `text`: `function name`, `class name`, `name(`, `name<T>(`, `name =`. */
function declares(text: string, name: string): boolean {
  const n = escaped(name);
  return new RegExp(
    `(?:function\\*?\\s+|class\\s+|interface\\s+|type\\s+|const\\s+|let\\s+)${n}\\b|\\b${n}\\s*(?:<[^\\n]*?>)?\\s*\\(|\\b${n}\\s*=`,
  ).test(text);
}

/** What is wrong with one cell: files missing, names not found in the file named before them. */
function cellProblems(spans: string[]): string[] {
  const problems: string[] = [];
  let file: string | null = null;
  let text = '';
  for (const span of spans) {
    if (FILE.test(span)) {
      file = span;
      const full = path.join(ROOT, span);
      text = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : '';
      if (!fs.existsSync(full)) problems.push(`${span}: no such file`);
      continue;
    }
    if (file === null) {
      problems.push(`${span}: no file named before it`);
      continue;
    }
    const classMethod = CLASS_METHOD.exec(span);
    const found = classMethod
      ? declares(text, classMethod[1]!) && declares(text, classMethod[2]!)
      : NAME.test(span)
        ? declares(text, span.replace(/\(\)$/, ''))
        : text.includes(span);
    if (!found) problems.push(`${span}: not in ${file}`);
  }
  return problems;
}

const design = fs.readFileSync(path.join(ROOT, 'docs/DESIGN.md'), 'utf8');
const rows = mapRows(design);

describe('DESIGN.md "Find your way"', () => {
  it('has a table of a few endpoints for each API', () => {
    for (const api of APIS) expect(rows.filter((row) => row.api === api).length, api).toBeGreaterThanOrEqual(3);
  });

  it('names a handler, a domain call and the Lua scripts (or none) in every row', () => {
    for (const row of rows) {
      const [handler, domain, lua] = row.cells;
      expect(row.cells, row.endpoint).toHaveLength(3);
      expect(
        handler!.some((span) => FILE.test(span)),
        `${row.endpoint}: handler file`,
      ).toBe(true);
      expect(
        domain!.some((span) => FILE.test(span)),
        `${row.endpoint}: domain file`,
      ).toBe(true);
      expect(
        lua!.every((span) => span.endsWith('.lua')),
        `${row.endpoint}: Lua cell`,
      ).toBe(true);
    }
  });

  it('names only files that exist and names that occur in them', () => {
    const problems = rows.flatMap((row) =>
      row.cells.flatMap(cellProblems).map((problem) => `${row.endpoint}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('the checker refuses a missing file, a missing method and a missing route', () => {
    expect(cellProblems(['src/mq/no-such-file.ts'])).toEqual(['src/mq/no-such-file.ts: no such file']);
    expect(cellProblems(['src/mq/message-queue.ts', 'MessageQueue.noSuchMethod'])).toEqual([
      'MessageQueue.noSuchMethod: not in src/mq/message-queue.ts',
    ]);
    expect(cellProblems(['src/mq/message-queue.ts', 'NoSuchClass.post'])).toHaveLength(1);
    expect(cellProblems(['api/mq-v3/messages.ts', "'/3/no/such/route'"])).toHaveLength(1);
    expect(cellProblems(['src/mq/message-queue.ts', 'MessageQueue.post'])).toEqual([]);
    expect(cellProblems(['MessageQueue.post'])).toEqual(['MessageQueue.post: no file named before it']);
  });

  it('reads code spans with backticks inside them', () => {
    expect(codeSpans('`a.ts` ``app.post(`${ITEM}/x` `` `b`')).toEqual(['a.ts', 'app.post(`${ITEM}/x`', 'b']);
  });
});
