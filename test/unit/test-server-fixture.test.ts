import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Every test file starts its servers through the fixtures of test/helpers/test-file.ts
// (useTestServer, useHardenedServer, useControllerBeside, useFerrumProcess, ...), or says on its
// first line why it cannot ("// Own server set-up: <reason>"), or is listed below with the reason.

const ROOT = path.resolve(import.meta.dirname, '../..');
const REASON_LINE = /^\/\/ Own server set-up: \S.*$/;

/** A start call of its own: not the body of an arrow handed to a fixture (`() => startX(...)`). */
const OWN_START = /(?<!=>\s*)\b(startTestServer|startHardenedServer|startController|startFerrumProcess)\s*\(/;

/** Files that start a server their own way, and why (those whose first line can say it, say it there). */
const OWN_WAY: Record<string, string> = {
  'test/redis/bootstrap.test.ts': 'the first start and its bootstrap on a fresh Redis are what it tests',
  'test/redis/adversarial/request-log-secrets.test.ts': "the controller is given a log of the test's own to read",
  'test/docker/redis-faults/redis-faults-docker.test.ts': 'kills and restarts the managed Redis under the process',
  'test/docker/redis-faults/redis-supervision-docker.test.ts': 'kills and restarts the managed Redis under the process',
  'test/docker/worker/gateway-runner-upgrade.test.ts': "runs a previous release's controller process",
  'test/upgrade/hot-containers.test.ts': "runs a previous release's controller process beside this one",
  'test/upgrade/side-by-side.test.ts': "runs a previous release's controller process beside this one",
};

function testFiles(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'test'), { withFileTypes: true, recursive: true })
    .flatMap((entry) =>
      entry.isFile() && entry.name.endsWith('.test.ts')
        ? [path.relative(ROOT, path.join(entry.parentPath, entry.name))]
        : [],
    )
    .filter((file) => !file.startsWith(path.join('test', 'unit')));
}

/** The lines of `text` that start a server other than through a fixture. */
function ownStarts(text: string): string[] {
  return text.split('\n').filter((line) => OWN_START.test(line) && !line.trimStart().startsWith('//'));
}

describe('test files start their servers through the fixtures', () => {
  const files = testFiles().map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') }));

  it('every file that starts one its own way gives the reason', () => {
    expect(files.length).toBeGreaterThan(100);
    const unexplained = files
      .filter(
        ({ file, text }) => ownStarts(text).length > 0 && !REASON_LINE.test(text.split('\n')[0]!) && !OWN_WAY[file],
      )
      .map(({ file, text }) => `${file}: ${ownStarts(text)[0]!.trim()}`);
    expect(unexplained).toEqual([]);
  });

  it('keeps no reason for a file that no longer needs one', () => {
    const needless = files
      .filter(({ file, text }) => (REASON_LINE.test(text.split('\n')[0]!) || OWN_WAY[file]) && !ownStarts(text).length)
      .map(({ file }) => file);
    expect(needless).toEqual([]);
    const missing = Object.keys(OWN_WAY).filter((file) => !files.some((found) => found.file === file));
    expect(missing).toEqual([]);
  });

  it('tells a start of its own from one a fixture makes', () => {
    expect(ownStarts('  server = await startTestServer({ A: "1" });')).toHaveLength(1);
    expect(ownStarts('  [server, cli] = await Promise.all([startFerrumProcess("start"), Cli.build()]);')).toHaveLength(
      1,
    );
    expect(ownStarts('const running = await startController(config);')).toHaveLength(1);
    expect(ownStarts('const server = useTestServer({}, () => startHardenedServer(env));')).toEqual([]);
    expect(ownStarts('const server = useTestServer({}, () => startTestServerOnRedis(redis.url));')).toEqual([]);
    expect(ownStarts('const b = useControllerBeside(a);')).toEqual([]);
  });
});
