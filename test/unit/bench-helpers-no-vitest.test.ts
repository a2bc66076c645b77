import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Benches run under tsx, not vitest: a test helper they import that loads vitest (a fixture with
// beforeAll/afterAll) kills them at start ("Vitest failed to access its internal state").
const ROOT = path.resolve(import.meta.dirname, '../..');
const RELATIVE_IMPORT = /^\s*import\s+(?!type\b)[^'"]*?from\s+'(\.{1,2}\/[^']+)'|^\s*import\s+'(\.{1,2}\/[^']+)'/gm;
const VITEST_IMPORT = /^\s*import\s+(?!type\b)[^'"]*?from\s+'vitest'/m;

function sourceOf(file: string): string {
  const ts = file.replace(/\.js$/, '.ts');
  return fs.readFileSync(fs.existsSync(ts) ? ts : file, 'utf8');
}

/** The test helpers a file imports (values, not types), as paths from the root. */
function helperImports(file: string): string[] {
  return [...sourceOf(file).matchAll(RELATIVE_IMPORT)]
    .map((match) => path.relative(ROOT, path.resolve(path.dirname(file), match[1] ?? match[2]!)))
    .filter((imported) => imported.startsWith('test/helpers/'))
    .map((imported) => path.join(ROOT, imported));
}

function benchFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('the test helpers the benches import', () => {
  it('load no vitest, directly or through other helpers', () => {
    const seen = new Set<string>();
    const loadingVitest: string[] = [];
    const queue = benchFiles(path.join(ROOT, 'bench')).flatMap(helperImports);
    expect(queue.length).toBeGreaterThan(0);
    while (queue.length > 0) {
      const helper = queue.pop()!;
      if (seen.has(helper)) continue;
      seen.add(helper);
      if (VITEST_IMPORT.test(sourceOf(helper))) loadingVitest.push(path.relative(ROOT, helper));
      queue.push(...helperImports(helper));
    }
    expect(loadingVitest).toEqual([]);
  });
});
