import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { zipOf } from '../../helpers/worker.js';
import { CLIENT_SCRIPTS_DIR, runClientScript } from '../../helpers/client-scripts.js';

const clientsDir = CLIENT_SCRIPTS_DIR;

// A migrating user's day in Python, Ruby, Java, Go and PHP: the scripts in clients/ send what
// the official clients send (headers, nulls, bodies on GET and DELETE, chunked bodies, method
// override) and read the iron.json the server wrote, copied beside them as the README's
// "Pointing an existing client at Ferrum" says. (test/docker/compat/official-clients-docker.test.ts runs the Go and PHP tasks.)
const server = useTestServer();
let workDir: string;
let packageZip: string;

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-clients-'));
  fs.copyFileSync(path.join(server.config.dataDir, 'iron.json'), path.join(workDir, 'iron.json'));
  packageZip = path.join(workDir, 'package.zip');
  fs.writeFileSync(packageZip, await zipOf({ 'run.sh': 'echo hello from sh\n' }));
});

afterAll(async () => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

const runClient = (command: string, args: string[]) => runClientScript(workDir, packageZip, command, args);

describe('official clients of other languages, unchanged', () => {
  it('iron.json names the scheme both ways (Python reads protocol, Ruby and Java read scheme)', () => {
    const written = JSON.parse(fs.readFileSync(path.join(workDir, 'iron.json'), 'utf8')) as Record<string, unknown>;
    expect(written.protocol).toBe('http');
    expect(written.scheme).toBe('http');
  });

  it('a Python user queues, reserves, deletes, clears, caches, schedules and retries', async () => {
    const out = await runClient('/usr/bin/python3', [path.join(clientsDir, 'python_flow.py')]);
    expect(out).toContain('ok worker queue task with nulls');
    expect(out.trim().endsWith('all ok')).toBe(true);
  });

  it('a Ruby user does the same', async () => {
    const out = await runClient('ruby', [path.join(clientsDir, 'ruby_flow.rb')]);
    expect(out).toContain('ok cache add keeps');
    expect(out.trim().endsWith('all ok')).toBe(true);
  });

  it('a Java user does the same, with DELETE and PATCH sent as POST + X-HTTP-Method-Override', async () => {
    const { port, hostname } = new URL(server.url);
    const out = await runClient('java', [
      path.join(clientsDir, 'JavaFlow.java'),
      'http',
      hostname,
      port,
      server.projectId,
      server.token,
      packageZip,
    ]);
    expect(out).toContain('ok mq clear (override)');
    expect(out.trim().endsWith('all ok')).toBe(true);
  });

  it('a Go user (iron_go3 and iron_go: net/http) queues, pushes, caches with flags and queues a task', async () => {
    const out = await runClient('go', ['run', path.join(clientsDir, 'go_flow.go'), 'day']);
    expect(out).toContain('ok v1 subscribers removed to none');
    expect(out).toContain('ok cache put with flags');
    expect(out.trim().endsWith('all ok')).toBe(true);
  });

  it('a PHP user (iron_core_php: curl) does the same', async () => {
    const out = await runClient('php', [path.join(clientsDir, 'php_flow.php'), 'day']);
    expect(out).toContain('ok mq clear with a [] body');
    expect(out).toContain('ok cache item meta');
    expect(out.trim().endsWith('all ok')).toBe(true);
  });
});
