import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A string or template literal that starts an API path (/1/…, /2/…, /3/…, /v1/…, /r/…, /ui/session). */
const API_PATH_LITERAL = /['"`]\/(?:1|2|3|v1|r)\/|['"`]\/ui\/session/;

function sourceFiles(dir: string, extension: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .flatMap((entry) =>
      entry.isFile() && entry.name.endsWith(extension)
        ? [path.relative(ROOT, path.join(entry.parentPath, entry.name))]
        : [],
    );
}

describe("the API's paths are built in client/paths.js only", () => {
  it('leaves no API path literal in the dashboard (web/) or the CLI (cli/)', () => {
    const files = [...sourceFiles('web', '.js'), ...sourceFiles('cli', '.ts')];
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((file) =>
      fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (API_PATH_LITERAL.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('finds one where there is one', () => {
    expect(API_PATH_LITERAL.test('api.get(`/3/projects/${id}/queues`)')).toBe(true);
    expect(API_PATH_LITERAL.test("h('a', { href: '#/queues' })")).toBe(false);
  });
});
