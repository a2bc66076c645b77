// The floor a post can reach on this machine: ioredis (auto-pipelined, as Ferrum's) and one Lua
// script that stores the messages' bodies and makes them available, behind either fastify or
// Node's bare http module. No authentication, validation, metrics, limits, expiry or alerts. The
// MQ benches drive it with the same load as Ferrum's post (bench:mq single posts from wrk,
// bench:mq-rabbitmq batches of 100), in the same run, so that Ferrum's figures can be read
// against what the stack alone costs at the same load.
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReferenceKind = 'fastify' | 'node-http';

// ARGV: now, then id, body per message.
const POST = `
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[i])
end
return 1`;

const PATH = /^\/3\/projects\/([^/]+)\/queues\/([^/]+)\/messages$/;

/** Serves POST /3/projects/:project_id/queues/:queue_name/messages; sends its URL to the parent, stops on any message. */
export async function serveReference(kind: ReferenceKind, redisUrl: string): Promise<void> {
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  const sha = (await redis.script('LOAD', POST)) as string;
  const post = async (projectId: string, queue: string, messages: { body: string }[]): Promise<string> => {
    const tag = `{reference:${projectId}:${queue}}`;
    const ids: string[] = [];
    const args: string[] = [String(Date.now())];
    for (const message of messages) {
      const id = randomBytes(12).toString('hex');
      ids.push(id);
      args.push(id, message.body);
    }
    await redis.evalsha(sha, 2, `${tag}:body`, `${tag}:ready`, ...args);
    return JSON.stringify({ ids, msg: 'Messages put on queue.' });
  };
  const close = kind === 'fastify' ? await listenFastify(post) : await listenNodeHttp(post);
  process.on('message', async () => {
    await close();
    redis.disconnect();
    process.exit(0);
  });
}

type Post = (projectId: string, queue: string, messages: { body: string }[]) => Promise<string>;

async function listenFastify(post: Post): Promise<() => Promise<void>> {
  const app = Fastify();
  app.post<{ Params: { project_id: string; queue_name: string }; Body: { messages: { body: string }[] } }>(
    '/3/projects/:project_id/queues/:queue_name/messages',
    async (request, reply) => {
      const { project_id, queue_name } = request.params;
      const json = await post(project_id, queue_name, request.body.messages);
      return reply.code(201).type('application/json; charset=utf-8').send(json);
    },
  );
  process.send!({ url: await app.listen({ port: 0, host: '127.0.0.1' }) });
  return () => app.close();
}

async function listenNodeHttp(post: Post): Promise<() => Promise<void>> {
  const server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const match = PATH.exec(request.url ?? '');
      if (request.method !== 'POST' || !match) return response.writeHead(404).end();
      const { messages } = JSON.parse(text) as { messages: { body: string }[] };
      void post(match[1]!, match[2]!, messages).then((json) =>
        response
          .writeHead(201, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(json),
          })
          .end(json),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  return () => new Promise((resolve) => server.close(() => resolve()));
}
