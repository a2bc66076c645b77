import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callClient, ironClientDir, useIronClient } from '../../helpers/iron-client.js';
import { startWorkerServer, zipOf } from '../../helpers/worker.js';
import { useRunner, workerClientOf } from '../../helpers/worker-test-file.js';

// The iron_worker package from npm (worker API v2), used exactly as its users do.
const clientDir = ironClientDir('iron_worker');
const session = useIronClient('iron_worker', { startServer: startWorkerServer });
useRunner(session.server);
const worker = workerClientOf(session.server);

const call = <T = any>(method: string, ...args: unknown[]) => callClient<T>(session.client, method, ...args);

describe('the iron_worker npm client', () => {
  it('uploads a Node worker as a zip, queues it, waits for it and reads its log', async () => {
    // The zip Client#codesUpload makes (its runner script plus the code), sent through the
    // client's own multipart upload; Client#codesUpload's zipping (an old adm-zip) fails on
    // file times after 2044 on this machine, so the zip is made here.
    const runnerScript =
      fs.readFileSync(path.join(clientDir, 'upload_files', '__runner__.sh'), 'utf8') + '\nnode hello.js';
    const zip = await zipOf({
      '__runner__.sh': runnerScript,
      'hello.js': "console.log('hello ' + require('fs').readFileSync(process.env.PAYLOAD_FILE, 'utf8'));\n",
    });
    const data = JSON.stringify({
      name: 'hello',
      file_name: '__runner__.sh',
      runtime: 'sh',
      content_type: 'text/plain',
    });
    const uploaded = await new Promise<any>((resolve, reject) =>
      session.client.api.codesUpload(
        { data, file: { buffer: zip, content_type: 'application/zip' } },
        (error: Error | null, body: any) =>
          error ? reject(error) : resolve(typeof body === 'string' ? JSON.parse(body) : body),
      ),
    );
    expect(typeof uploaded.id).toBe('string');
    const code = await call('codesGet', uploaded.id);
    expect(code).toMatchObject({ name: 'hello', stack: 'node', runtime: 'sh', command: 'sh __runner__.sh' });
    expect((await call('codesList', {})).map((item: any) => item.name)).toContain('hello');

    const queued = await call('tasksCreate', 'hello', { who: 'iron' }, {});
    const task = await worker.waitFor(queued.id, ['complete', 'error'], 30000);
    expect(task.status, task.msg).toBe('complete');
    expect((await call('tasksGet', queued.id)).status).toBe('complete');
    expect(await call('tasksLog', queued.id)).toBe('hello {"who":"iron"}\n');
  });

  it('cancels a task and lists tasks', async () => {
    await worker.upload({ name: 'sleeper', image: 'ferrum-test/busybox', command: 'sleep 30' });
    const queued = await call('tasksCreate', 'sleeper', 'x', { delay: 60 });
    const taskId = queued.id;
    await call('tasksCancel', taskId);
    expect((await call('tasksGet', taskId)).status).toBe('cancelled');
    const listed = await call('tasksList', { cancelled: 1 });
    expect(listed.map((item: any) => item.id)).toContain(taskId);
  });
});
