import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_SCRIPTS_DIR, runClientScript } from '../../helpers/client-scripts.js';
import { scaled } from '../../helpers/pace.js';
import { RUNTIME_STACKS_ENV } from '../../helpers/runtimes.js';
import { zipOf } from '../../helpers/worker.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';

const clientsDir = CLIENT_SCRIPTS_DIR;

// The Go and PHP users' tasks, run: upload, queue, wait as their clients wait (only while the
// task is queued or running) and read the log at once, as the clients' tests do. The rest of
// their day is test/redis/compat/official-clients.test.ts (same scripts, no runner).
const { server } = workerTestFile(RUNTIME_STACKS_ENV);
useRunner(server, RUNTIME_STACKS_ENV);
let workDir: string;

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-clients-run-'));
  fs.copyFileSync(path.join(server.config.dataDir, 'iron.json'), path.join(workDir, 'iron.json'));
  const script = 'echo "hello from sh: $(cat "$PAYLOAD_FILE")"\n';
  fs.writeFileSync(path.join(workDir, 'package.zip'), await zipOf({ 'run.sh': script }));
}, scaled(120_000));

afterAll(() => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

const runClient = (command: string, args: string[]) =>
  runClientScript(workDir, path.join(workDir, 'package.zip'), command, args);

describe('Go and PHP users run a task and read its log right after it completes', () => {
  it(
    'Go (WaitForTask, then TaskLog)',
    async () => {
      const out = await runClient('go', ['run', path.join(clientsDir, 'go_flow.go'), 'run']);
      expect(out).toContain('ok worker log right after completion');
    },
    scaled(150_000),
  );

  it(
    'PHP (waitFor, then getLog)',
    async () => {
      const out = await runClient('php', [path.join(clientsDir, 'php_flow.php'), 'run']);
      expect(out).toContain('ok worker log right after completion');
    },
    scaled(150_000),
  );
});
