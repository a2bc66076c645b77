// The floor a queue request can reach on this machine: ioredis (auto-pipelined, as Ferrum's) and
// one Lua script per request on the same Redis, behind either fastify or Node's bare http module.
// It serves v3's post (store the bodies, make them available), reserve (pop n, hand back their
// bodies with a reservation id each and record the reservation with a deadline, or delete them
// with `delete: true`), batch delete (remove the messages whose reservation ids match) and
// delete by id (remove a message reserved under the reservation id given, or one not reserved). No
// authentication, validation, metrics, limits, expiry, dead letters or alerts. The MQ benches
// drive it with the same load as Ferrum's (bench:mq single posts from wrk, bench:mq-rabbitmq
// batches of 100, the paced single round trips), in the same run, so that Ferrum's figures can be
// read against what the stack alone costs at the same load.
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReferenceKind = 'fastify' | 'node-http';

// KEYS: bodies, ready. ARGV: now, then id, body per message.
const POST = `
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[i])
end
return 1`;

// KEYS: bodies, ready, reserved (deadline per id), reservations (reservation id per id).
// ARGV: n, deadline, delete ('1'), reservation id prefix. Returns id, body[, reservation id] per message.
const RESERVE = `
local popped = redis.call('ZPOPMIN', KEYS[2], ARGV[1])
if #popped == 0 then return {} end
local ids = {}
for i = 1, #popped, 2 do ids[#ids + 1] = popped[i] end
local bodies = redis.call('HMGET', KEYS[1], unpack(ids))
local out = {}
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], unpack(ids))
  for i, id in ipairs(ids) do
    out[#out + 1] = id
    out[#out + 1] = bodies[i]
  end
  return out
end
local deadlines, rids = {}, {}
for i, id in ipairs(ids) do
  local rid = ARGV[4] .. string.format('%02x', i)
  deadlines[#deadlines + 1] = ARGV[2]
  deadlines[#deadlines + 1] = id
  rids[#rids + 1] = id
  rids[#rids + 1] = rid
  out[#out + 1] = id
  out[#out + 1] = bodies[i]
  out[#out + 1] = rid
end
redis.call('ZADD', KEYS[3], unpack(deadlines))
redis.call('HSET', KEYS[4], unpack(rids))
return out`;

// KEYS: bodies, reserved, reservations. ARGV: id, reservation id per message. Returns how many it deleted.
const DELETE = `
local ids = {}
for i = 1, #ARGV, 2 do ids[#ids + 1] = ARGV[i] end
local held = redis.call('HMGET', KEYS[3], unpack(ids))
local gone = {}
for i, id in ipairs(ids) do
  if held[i] == ARGV[2 * i] then gone[#gone + 1] = id end
end
if #gone > 0 then
  redis.call('HDEL', KEYS[3], unpack(gone))
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('HDEL', KEYS[1], unpack(gone))
end
return #gone`;

// KEYS: bodies, ready, reserved, reservations. ARGV: id, reservation id ('' = none). Returns 1
// when it deleted the message (reserved under that reservation id, or on the ready set), else 0.
const DELETE_ONE = `
if ARGV[2] ~= '' then
  if redis.call('HGET', KEYS[4], ARGV[1]) ~= ARGV[2] then return 0 end
  redis.call('HDEL', KEYS[4], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
elseif redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1`;

const RESERVATION_SECONDS = 60;

interface Answer {
  status: number;
  json: string;
}

/**
 * One route: `resource` is what follows /3/projects/:project_id/queues/:queue_name/ ('message':
 * messages/:message_id, whose id `handle` gets).
 */
interface Route {
  method: 'POST' | 'DELETE';
  resource: 'messages' | 'reservations' | 'message';
  handle: (keys: (name: string) => string, body: any, id?: string) => Promise<Answer>;
}

// project, queue, then 'messages' or 'reservations', or a message id after messages/.
const PATH = /^\/3\/projects\/([^/]+)\/queues\/([^/]+)\/(?:(messages|reservations)|messages\/([^/]+))$/;
const RESOURCE_PATHS = { messages: 'messages', reservations: 'reservations', message: 'messages/:message_id' };

async function routesOn(redis: Redis): Promise<Route[]> {
  const load = async (script: string) => (await redis.script('LOAD', script)) as string;
  const [post, reserve, remove, removeOne] = await Promise.all([
    load(POST),
    load(RESERVE),
    load(DELETE),
    load(DELETE_ONE),
  ]);
  return [
    {
      method: 'POST',
      resource: 'messages',
      handle: async (keys, body: { messages: { body: string }[] }) => {
        const ids: string[] = [];
        const args: string[] = [String(Date.now())];
        for (const message of body.messages) {
          const id = randomBytes(12).toString('hex');
          ids.push(id);
          args.push(id, message.body);
        }
        await redis.evalsha(post, 2, keys('body'), keys('ready'), ...args);
        return { status: 201, json: JSON.stringify({ ids, msg: 'Messages put on queue.' }) };
      },
    },
    {
      method: 'POST',
      resource: 'reservations',
      handle: async (keys, body: { n?: number; delete?: boolean }) => {
        const deleting = body.delete === true;
        const deadline = String(Date.now() + RESERVATION_SECONDS * 1000);
        const prefix = randomBytes(11).toString('hex');
        const flat = (await redis.evalsha(
          reserve,
          4,
          keys('body'),
          keys('ready'),
          keys('reserved'),
          keys('reservations'),
          String(body.n ?? 1),
          deadline,
          deleting ? '1' : '0',
          prefix,
        )) as string[];
        const stride = deleting ? 2 : 3;
        const messages = [];
        for (let i = 0; i < flat.length; i += stride) {
          const message = { id: flat[i], body: flat[i + 1], reserved_count: 1 };
          messages.push(deleting ? message : { ...message, reservation_id: flat[i + 2] });
        }
        return { status: 200, json: JSON.stringify({ messages }) };
      },
    },
    {
      method: 'DELETE',
      resource: 'messages',
      handle: async (keys, body: { ids: { id: string; reservation_id: string }[] }) => {
        const args = body.ids.flatMap(({ id, reservation_id }) => [id, reservation_id]);
        const deleted = (await redis.evalsha(
          remove,
          3,
          keys('body'),
          keys('reserved'),
          keys('reservations'),
          ...args,
        )) as number;
        return deleted === body.ids.length
          ? { status: 200, json: '{"msg":"Deleted"}' }
          : { status: 404, json: JSON.stringify({ msg: `${body.ids.length - deleted} messages not found` }) };
      },
    },
    {
      method: 'DELETE',
      resource: 'message',
      handle: async (keys, body: { reservation_id?: string }, id) => {
        const deleted = (await redis.evalsha(
          removeOne,
          4,
          keys('body'),
          keys('ready'),
          keys('reserved'),
          keys('reservations'),
          id!,
          body.reservation_id ?? '',
        )) as number;
        return deleted === 1
          ? { status: 200, json: '{"msg":"Deleted"}' }
          : { status: 404, json: '{"msg":"Message not found"}' };
      },
    },
  ];
}

/** The keys of one queue, in one hash slot. */
const keysOf = (projectId: string, queue: string) => (name: string) => `{reference:${projectId}:${queue}}:${name}`;

/** Serves post, reserve and batch delete on v3's paths; sends its URL to the parent, stops on any message. */
export async function serveReference(kind: ReferenceKind, redisUrl: string): Promise<void> {
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  const routes = await routesOn(redis);
  const close = kind === 'fastify' ? await listenFastify(routes) : await listenNodeHttp(routes);
  process.on('message', async () => {
    await close();
    redis.disconnect();
    process.exit(0);
  });
}

async function listenFastify(routes: Route[]): Promise<() => Promise<void>> {
  const app = Fastify();
  for (const route of routes)
    app.route<{ Params: { project_id: string; queue_name: string; message_id?: string } }>({
      method: route.method,
      url: `/3/projects/:project_id/queues/:queue_name/${RESOURCE_PATHS[route.resource]}`,
      handler: async (request, reply) => {
        const { project_id, queue_name, message_id } = request.params;
        const { status, json } = await route.handle(keysOf(project_id, queue_name), request.body, message_id);
        return reply.code(status).type('application/json; charset=utf-8').send(json);
      },
    });
  process.send!({ url: await app.listen({ port: 0, host: '127.0.0.1' }) });
  return () => app.close();
}

async function listenNodeHttp(routes: Route[]): Promise<() => Promise<void>> {
  const server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const match = PATH.exec(request.url ?? '');
      const resource = match?.[3] ?? 'message';
      const route = match && routes.find((r) => r.method === request.method && r.resource === resource);
      if (!route) return response.writeHead(404).end();
      void route
        .handle(keysOf(match[1]!, match[2]!), text === '' ? {} : JSON.parse(text), match[4])
        .then(({ status, json }) =>
          response
            .writeHead(status, {
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
