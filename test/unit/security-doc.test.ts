import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

// docs/SECURITY.md names, for each feature, the tests that show its invariants: each must exist.
// A path marked "(added by this release)" is work in flight: it must not exist yet, so the mark
// comes off when the file lands.

const doc = fs.readFileSync('docs/SECURITY.md', 'utf8');
const PENDING = '*(added by this release)*';
const named = [...doc.matchAll(/`(test\/[^`\s]+\.test\.ts)`(\s*\*\(added by this release\)\*)?/g)].map((match) => ({
  path: match[1]!,
  pending: match[2] !== undefined,
}));

describe('docs/SECURITY.md', () => {
  it('names tests', () => {
    expect(named.filter((test) => !test.pending).length).toBeGreaterThan(30);
    expect(doc).toContain(PENDING);
  });

  it('names only tests that exist', () => {
    const missing = named.filter((test) => !test.pending && !fs.existsSync(test.path)).map((test) => test.path);
    expect(missing).toEqual([]);
  });

  it('marks as added by this release only tests not there yet', () => {
    const landed = named.filter((test) => test.pending && fs.existsSync(test.path)).map((test) => test.path);
    expect(landed).toEqual([]);
  });

  it('is linked from README', () => {
    expect(fs.readFileSync('README.md', 'utf8')).toContain('(docs/SECURITY.md)');
  });
});
