import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// eslint's import-x/no-cycle catches runtime circles; this also catches those made of type
// imports only, which still tie two modules together (neither can move or be read alone).
const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'api', 'controller', 'runner', 'cli', 'bin'];
const STATIC_IMPORT =
  /^\s*(?:import|export)\b[^'";]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true, recursive: true })
    .flatMap((entry) =>
      entry.isFile() && entry.name.endsWith('.ts') ? [path.join(entry.parentPath, entry.name)] : [],
    );
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(STATIC_IMPORT)].map((match) =>
    path.resolve(path.dirname(file), (match[1] ?? match[2])!.replace(/\.js$/, '.ts')),
  );
}

/** Every circle of the graph, each as the list of files around it (one per strongly connected component). */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('imports', () => {
  it('form no circles, not even through type-only imports', () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder)));
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    const named = circles(graph).map((circle) => circle.map((file) => path.relative(ROOT, file)).join(' → '));
    expect(named).toEqual([]);
  });

  it('the circle finder sees a circle', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });
});
