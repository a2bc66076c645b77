import { beforeAll, describe, expect, it } from 'vitest';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { buildIronClientsImage } from '../../helpers/image.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { zipOf } from '../../helpers/worker.js';
import { onHostNetwork, useRunner, workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

// Issue 18, point 1 (and 5, 6 where a task must run): existing worker code that uses the
// platform from inside its container, with the official iron_mq client from npm.
let image: string;
beforeAll(async () => {
  image = await buildIronClientsImage();
}, scaled(180_000));
const { server, worker } = workerTestFile();
// Host network: the container reaches the API on loopback, at the server's real port.
useRunner(server, () => onHostNetwork(server));

// Task code as users write it: iron_mq configured by the IRON_* variables alone; the cache
// read with the same variables; then a post to another project, which must be refused.
const taskJs = `
const fs = require('fs');
const iron_mq = require('iron_mq');
const payload = JSON.parse(fs.readFileSync(process.env.PAYLOAD_FILE, 'utf8'));
const say = (what, value) => console.log(what + '=' + JSON.stringify(value));
say('env', { token: process.env.IRON_TOKEN === process.env.FERRUM_TASK_TOKEN, scheme: process.env.IRON_SCHEME });
say('args', process.argv.slice(2));
const post = (client, body) => new Promise((resolve) => client.post(body, (error, result) => resolve(error ? 'error: ' + error.message : result)));
(async () => {
  say('post', await post(new iron_mq.Client({ queue_name: payload.queue }), 'from the task'));
  const base = process.env.IRON_PROTOCOL + '://' + process.env.IRON_HOST + ':' + process.env.IRON_PORT;
  const item = await fetch(base + '/1/projects/' + process.env.IRON_PROJECT_ID + '/caches/' + payload.cache + '/items/greeting', {
    headers: { Authorization: 'OAuth ' + process.env.IRON_TOKEN },
  });
  say('cache', { status: item.status, value: (await item.json()).value });
  say('other', await post(new iron_mq.Client({ queue_name: payload.queue, project_id: payload.other }), 'elsewhere'));
})();
`;

function valueIn(log: string, name: string): any {
  const line = log.split('\n').find((text) => text.startsWith(`${name}=`));
  if (!line) throw new Error(`no ${name}= in the log:\n${log}`);
  return JSON.parse(line.slice(name.length + 1));
}

describe('a task uses the platform with the official iron_mq client', () => {
  it(
    'posts to a queue and reads a cache of its project; is refused for another project',
    async () => {
      const other = await server.http.post('/1/projects', { name: 'someone else' });
      expect(other.status).toBe(201);
      const queue = uniqueQueue('from-task');
      const cache = uniqueCacheName('for-task');
      await server.http.put(cachePaths(server.projectId, cache).item('greeting'), { value: 'hello task' });
      await worker.upload({ name: 'iron-user', image, command: 'node task.js' }, await zipOf({ 'task.js': taskJs }));
      const id = await worker.queue('iron-user', JSON.stringify({ queue, cache, other: other.body.id }));
      const task = await worker.waitFor(id, ['complete', 'error'], 60_000);
      const log = await worker.log(id);
      expect(task.status, log).toBe('complete');
      expect(valueIn(log, 'env')).toEqual({ token: true, scheme: 'http' });
      expect(valueIn(log, 'post')).toMatch(/^\d+$/); // the client answers with the message id
      expect(valueIn(log, 'cache')).toEqual({ status: 200, value: 'hello task' });
      expect(valueIn(log, 'other')).toBe('error: This token has no access to the project');
      const messages = await new MqClient(server.http, server.projectId).peek(queue);
      expect(messages.map((message: any) => message.body)).toEqual(['from the task']);
    },
    scaled(90_000),
  );

  it(
    "a code package's own IRON_TOKEN wins over the injected one",
    async () => {
      await worker.upload({
        name: 'own-token',
        image: 'ferrum-test/busybox',
        command: 'sh -c \'echo "token=$IRON_TOKEN task=$FERRUM_TASK_TOKEN"\'',
        env_vars: { IRON_TOKEN: 'my-own-token' },
      });
      const id = await worker.queue('own-token', '');
      const task = await worker.waitFor(id, ['complete', 'error'], 30_000);
      const log = await worker.log(id);
      expect(task.status, log).toBe('complete');
      expect(log).toMatch(/^token=my-own-token task=task_\S+\n$/);
    },
    scaled(40_000),
  );

  it(
    'an image package without a command gets -payload -config -id -d like a zip package',
    async () => {
      await worker.upload({ name: 'echo-args', image: 'ferrum-test/task-echo', config: 'k: v' });
      const id = await worker.queue('echo-args', 'p');
      const task = await worker.waitFor(id, ['complete', 'error'], 30_000);
      expect(task.status).toBe('complete');
      expect(await worker.log(id)).toContain(
        `args: -payload /mnt/task/payload.json -config /mnt/task/config.json -id ${id} -d /mnt/task\n`,
      );
    },
    scaled(40_000),
  );

  it(
    "adds each ended task's run time to the project's total_duration",
    async () => {
      const before = (await server.http.get(`/1/projects/${server.projectId}`)).body.total_duration;
      await worker.upload({ name: 'napper', image: 'ferrum-test/busybox', command: "sh -c 'sleep 1'" });
      const id = await worker.queue('napper', '');
      const task = await worker.waitFor(id, ['complete', 'error'], 30_000);
      expect(task.status).toBe('complete');
      const after = (await server.http.get(`/1/projects/${server.projectId}`)).body.total_duration;
      expect(after - before).toBe(task.duration);
      expect(task.duration).toBeGreaterThanOrEqual(1000);
    },
    scaled(40_000),
  );
});
