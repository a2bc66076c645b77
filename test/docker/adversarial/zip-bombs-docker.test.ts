import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import { extractZip } from '../../../src/worker/codes/archives/zip.js';
import { FAST_WORKER_ENV, uploadForm, zipOf } from '../../helpers/worker.js';
import { expectHealthy } from '../../helpers/adversarial/hardened-server.js';
import { useAttackerAndVictim, useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';
import { useRunner } from '../../helpers/worker-test-file.js';

// A tenant uploads code packages made to fill the runner's disk, and tasks that write without end.

const ZIP_ENV = {
  ...FAST_WORKER_ENV,
  FERRUM_WORKER_ZIP_MAX_ENTRIES: '50',
  FERRUM_WORKER_ZIP_MAX_UNPACKED_BYTES: String(4 * 1024 * 1024),
  FERRUM_WORKER_ZIP_MAX_RATIO: '200',
  FERRUM_RUNNER_DISK_MB: '8',
};

const server = useHardenedServer(ZIP_ENV);
useRunner(server, ZIP_ENV);
const { attacker, worker, victimIntact } = useAttackerAndVictim(server, 'zip');

async function uploadZip(zip: Buffer) {
  return attacker.http.post(worker.path('/codes'), undefined, {
    raw: uploadForm({ name: 'bomb', stack: 'sh', file_name: 'run.sh', runtime: 'sh' }, zip),
  });
}

/** A zip whose directory says each entry unpacks to `declared` bytes, whatever it really holds. */
async function lyingZip(content: Buffer, declared: number): Promise<Buffer> {
  const zip = await zipOf({ 'big.bin': content.toString('latin1') });
  const patched = Buffer.from(zip);
  for (const [signature, sizeOffset] of [
    [0x04034b50, 22],
    [0x02014b50, 24],
  ] as const) {
    for (let at = patched.indexOf(Buffer.from(new Uint32Array([signature]).buffer)); at >= 0;) {
      patched.writeUInt32LE(declared, at + sizeOffset);
      at = patched.indexOf(Buffer.from(new Uint32Array([signature]).buffer), at + 4);
    }
  }
  return patched;
}

describe('zip packages', () => {
  it('refuses too many entries, naming the limit', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`f${i}.txt`] = 'x';
    const response = await uploadZip(await zipOf(files));
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/more than 50 entries/);
  });

  it('refuses a compression bomb, naming the ratio', async () => {
    const response = await uploadZip(await zipOf({ 'zeros.bin': '\0'.repeat(3 * 1024 * 1024) }));
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/compressed more than 200:1/);
  });

  it('refuses more unpacked bytes than allowed, naming the limit', async () => {
    const random = crypto.randomBytes(5 * 1024 * 1024).toString('latin1');
    const response = await uploadZip(await zipOf({ 'random.bin': random }));
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/unpacks to more than 4194304 bytes/);
    await expectHealthy(server);
    await victimIntact();
  });

  it('stops unpacking an entry that holds more than its directory declares', async () => {
    const limits = loadConfig({}).worker.zip;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-zip-lie-'));
    try {
      const zip = await lyingZip(crypto.randomBytes(2 * 1024 * 1024), 1000);
      await expect(extractZip(zip, dir, { ...limits, maxUnpackedBytes: 4096 })).rejects.toThrow();
      const written = fs.existsSync(path.join(dir, 'big.bin')) ? fs.statSync(path.join(dir, 'big.bin')).size : 0;
      expect(written).toBeLessThanOrEqual(64 * 1024);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('symbolic links in zip packages', () => {
  it('refuses a link leaving the package, naming it', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'run.sh': '/etc/shadow' }, /run\.sh is a symbolic link to the absolute path/],
      [{ 'lib/up': '../../..' }, /lib\/up is a symbolic link leaving the package/],
      [{ hop: 'lib', 'run.sh': 'hop/x' }, /run\.sh is a symbolic link through another link \(hop\)/],
    ];
    for (const [links, msg] of cases) {
      const response = await uploadZip(await zipOf({ 'lib/x': 'x' }, { links }));
      expect(response.status, JSON.stringify(links)).toBe(400);
      expect(response.body.msg).toMatch(msg);
    }
  });

  it('keeps a link inside the package: the task reads and runs through it', async () => {
    const kept = await zipOf(
      { 'versions/1/run.sh': 'echo "run via $0: $(cat current/msg)"', 'versions/1/msg': 'from version 1' },
      { links: { current: 'versions/1', 'run.sh': 'versions/1/run.sh' } },
    );
    expect((await uploadZip(kept)).status).toBe(200);
    const id = await worker.queue('bomb', '');
    const task = await worker.waitFor(id, ['complete', 'error'], 60_000);
    const log = await worker.log(id);
    expect(task.status, log).toBe('complete');
    expect(log).toBe('run via run.sh: from version 1\n');
  });
});

describe('task containers', () => {
  it('have a bounded task folder: writing past it fails, the payload is still there', async () => {
    await worker.upload({ name: 'filler', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
    const script = [
      'echo payload-readable',
      'df -m "$TASK_DIR" | tail -1',
      'dd if=/dev/zero of="$TASK_DIR/fill" bs=1M count=32 2>&1 | tail -1',
      'echo "written=$(du -m "$TASK_DIR/fill" | cut -f1)"',
    ].join('; ');
    const id = await worker.queue('filler', script);
    const task = await worker.waitFor(id, ['complete', 'error'], 60_000);
    const log = await worker.log(id);
    expect(task.status, log).toBe('complete');
    expect(log).toContain('payload-readable');
    // dd stopped short of its 32 MiB (the disk was full), and nothing beyond 8 MiB was kept.
    expect(Number(/(\d+)\+\d+ records out/.exec(log)?.[1])).toBeLessThan(32);
    const written = Number(/written=(\d+)/.exec(log)?.[1]);
    expect(written).toBeLessThanOrEqual(8);
    await expectHealthy(server);
    await victimIntact();
  });
});
