import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// test/fixtures/f89fce9 holds release f89fce9's MQ scripts as git has them: checked here
// whenever the checkout has that commit (a shallow clone may not).
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/f89fce9');

function atRelease(file: string): string | null {
  try {
    return execFileSync('git', ['show', `f89fce9:${file}`], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch {
    return null;
  }
}

const files = fs
  .readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.lua'))
  .map((file) => file.split(path.sep).join('/'));

describe('release f89fce9 fixtures', () => {
  it('are the scripts the MQ test runs beside ours', () => {
    expect(files).toEqual(expect.arrayContaining(['src/mq/reserve.lua', 'src/mq/common.lua', 'src/core/clock.lua']));
  });

  it.each(files)('%s is byte for byte what f89fce9 has', (file) => {
    const released = atRelease(file);
    if (released === null) return;
    expect(fs.readFileSync(path.join(FIXTURES, file), 'utf8')).toBe(released);
  });
});
