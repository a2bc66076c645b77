import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// README.md is a short guide; the reference lives in docs/. Every relative link must lead somewhere.

const ROOT = path.resolve(import.meta.dirname, '../..');
const GUIDES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)];

function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** The heading anchors of a markdown file, as GitHub makes them. */
function anchorsOf(text: string): Set<string> {
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]!);
  return new Set(
    headings.map((heading) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- ]/gu, '')
        .replaceAll(' ', '-'),
    ),
  );
}

describe('README.md', () => {
  const readme = read('README.md');

  it('stays a guide: under 300 lines, none over 200 characters', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThan(300);
    expect(lines.filter((line) => line.length > 200)).toEqual([]);
  });

  it('leads to the dashboard, the walkthrough, docs/ and DESIGN.md', () => {
    expect(readme).toContain('http://127.0.0.1:8080/');
    expect(readme).toContain('## Five-minute walkthrough');
    for (const doc of ['configuration', 'api', 'operations', 'SECURITY', 'benchmarks', 'DESIGN']) {
      expect(readme, doc).toContain(`(docs/${doc}.md)`);
    }
  });
});

describe('the links of README.md and docs/', () => {
  it('lead to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of GUIDES.filter((name) => name.endsWith('.md'))) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [where, anchor] = target!.split('#');
        const linked = where ? path.join(path.dirname(file), where) : file;
        const exists = fs.existsSync(path.join(ROOT, linked));
        const anchored = !anchor || !linked.endsWith('.md') || (exists && anchorsOf(read(linked)).has(anchor));
        if (!exists || !anchored) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
