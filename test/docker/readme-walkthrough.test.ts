import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cli } from '../helpers/cli.js';
import { useBeforeAll, useFerrumProcess } from '../helpers/test-file.js';
import { scaled } from '../helpers/pace.js';

// The README's five-minute walkthrough, run as written against an all-in-one `ferrum start`.

const ROOT = path.resolve(import.meta.dirname, '../..');
const FUNCTION_IMAGE = 'ferrum-test/readme-hello-upper';

/** The shell blocks of the README's walkthrough, in order. */
function walkthroughBlocks(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Five-minute walkthrough');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** What differs on a test machine: the server's address, and local images where a user pulls public ones. */
function forThisMachine(block: string, url: string): string {
  return block
    .replaceAll('http://127.0.0.1:8080', url)
    .replaceAll('--image busybox', '--image ferrum-test/busybox')
    .replaceAll('"image": "busybox"', '"image": "ferrum-test/busybox"')
    .replaceAll('FROM busybox', 'FROM ferrum-test/busybox')
    .replaceAll('hello-upper', FUNCTION_IMAGE);
}

const cli = useBeforeAll(
  () => Cli.build(),
  (built) => built.cleanUp(),
);
const server = useFerrumProcess('start');
let folder: string;

beforeAll(() => {
  // The folder `npm start` ran in: its .ferrum is the server's data folder.
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-readme-'));
  fs.symlinkSync(server.dataDir, path.join(folder, '.ferrum'));
});

afterAll(async () => {
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
  await promisify(execFile)('docker', ['rmi', '-f', FUNCTION_IMAGE]).catch(() => undefined);
});

function runScript(script: string): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('IRON_') && name !== 'FERRUM_DATA_DIR'),
  );
  const child = spawn('bash', ['-c', script], { cwd: folder, env: { ...env, HOME: cli.home, CLI: cli.entry } });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe("the README's walkthrough", { timeout: scaled(300_000) }, () => {
  it('runs as written: a message, a code package, a task and its log, a function, with the CLI and with curl', async () => {
    const blocks = walkthroughBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(9);
    const script = [
      'set -euo pipefail',
      // `npx ferrum` is this checkout's CLI (bundled once for the test).
      'npx() { if [ "$1" = ferrum ]; then shift; node "$CLI" "$@"; else command npx "$@"; fi; }',
      ...blocks.map((block, index) => `echo "--- block ${index + 1}"\n${forThisMachine(block, server.url)}`),
    ].join('\n');
    const { code, output } = await runScript(script);
    expect(code, output).toBe(0);
    expect(output).toContain('Hello, Ferrum');
    expect(output).toContain('"body":"Hello from curl"');
    expect(output).toMatch(/Upload successful\. \(code id [0-9a-f]{24}\)/);
    expect(output).toContain('Hello from a task, payload: {"name": "world"}');
    expect(output).toContain('Hello from a curl task');
    expect(output).toContain('HELLO, FUNCTIONS');
    expect(output).toContain('HELLO FROM CURL');
  });
});
