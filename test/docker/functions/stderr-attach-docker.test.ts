import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import { attachDemuxer } from '../../../runner/functions/attach-demux.js';
import { StderrAttach } from '../../../runner/functions/stderr-attach.js';
import { eventually } from '../../helpers/eventually.js';

const docker = new Docker();
const started: Docker.Container[] = [];

/** A busybox container running `script`, its stderr read by a StderrAttach (paced from its first read); `/out` is `outDir`. */
async function attached(script: string, outDir?: string) {
  const container = await docker.createContainer({
    Image: 'ferrum-test/busybox',
    Cmd: ['sh', '-c', script],
    AttachStderr: true,
    HostConfig: {
      NetworkMode: 'none',
      LogConfig: { Type: 'none', Config: {} },
      Binds: outDir ? [`${outDir}:/out`] : undefined,
    },
  });
  started.push(container);
  const read = { text: '', reads: 0, firstAt: 0 };
  const demux = attachDemuxer({ stderr: (piece) => (read.text += piece.toString()) });
  const engineSocket = (await (docker.modem as unknown as { getSocketPath(): Promise<string> }).getSocketPath())!;
  let paced: StderrAttach | null = null;
  const stream = await StderrAttach.open(
    engineSocket,
    container.id,
    (chunk) => {
      read.reads += 1;
      read.firstAt ||= Date.now();
      demux(chunk);
      paced?.pace();
    },
    () => {},
  );
  paced = stream;
  await container.start();
  return { container, stream, read };
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((container) => container.remove({ force: true }).catch(() => {})));
});

describe("a hot container's stderr on a connection of its own (StderrAttach)", () => {
  it('reads every line, in bursts at most one a pause apart once paced', async () => {
    const { stream, read } = await attached(
      'for i in $(seq 1 30); do echo "line $i" >&2; sleep 0.02; done; echo done >&2; sleep 60',
    );
    await eventually(() => read.text.includes('done\n'), 20_000, 'the last line read');
    const elapsedMs = Date.now() - read.firstAt;
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');
    expect(read.text).toBe(`${lines}done\n`);
    // After each read that emptied it, the stream rests 100 ms: 31 lines never cost 31 reads.
    expect(read.reads).toBeLessThanOrEqual(Math.floor(elapsedMs / 100) + 2);
    await stream.close();
  });

  it('reads what a container wrote before it was removed, until the engine ends the stream', async () => {
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-stderr-attach-'));
    fs.chmodSync(outDir, 0o777);
    try {
      const { container, stream, read } = await attached(
        'echo first >&2; sleep 0.05; echo "last words" >&2; touch /out/wrote; sleep 60',
        outDir,
      );
      await eventually(() => read.text.includes('first\n'), 20_000, 'the first line read');
      await eventually(() => fs.existsSync(path.join(outDir, 'wrote')), 20_000, 'the last line written');
      // Closed as the removal starts: the line may still wait unread (the stream rests after a read).
      const removal = container.remove({ force: true });
      await stream.close();
      await removal;
      expect(read.text).toBe('first\nlast words\n');
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  });
});
