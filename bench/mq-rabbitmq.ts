/**
 * Ferrum's message queue beside RabbitMQ, on this machine in one run, with the same message
 * count, size and batch, at two durability levels (rows):
 * - durable: Ferrum on a Redis with AOF fsynced every second (its managed Redis's default);
 *   RabbitMQ with persistent messages on a durable queue.
 * - transient: no persistence on either (a Redis without AOF or snapshots; transient messages
 *   on a non-durable queue).
 * RabbitMQ (Debian's package, installed when absent and started as a private node on
 * 127.0.0.1:5673 when not running) is driven as its experts do: publisher confirms per 100,
 * prefetch 100 and one ack with `multiple` per 100 messages. The transient row also consumes
 * with one ack per message, labelled as such. Ferrum: v3 over HTTP keep-alive, batches of 100
 * (post; reserve n=100 then delete the batch, and reserve with delete: true), its server
 * (controller + redis-server) in a process of its own. 4 clients on each side. Each Ferrum
 * figure is measured beside its RabbitMQ reference in alternating rounds (Ferrum, RabbitMQ,
 * RabbitMQ, Ferrum, ...) of an equal share of the messages, summed per side, so that other work
 * on the machine weighs on both alike. Prints msg/s, the ratios and each system's server CPU
 * seconds per 100,000 messages from /proc (figures that load on the machine moves less).
 * Produce also runs against its floor, in alternating rounds with Ferrum's: the same posts to a
 * bare node:http server storing each batch with one script on the same Redis, nothing else
 * (bench/lib/reference-server.ts), so that the report shows what the stack alone reaches.
 * BENCH_PROFILE=1: a --cpu-prof profile of the Ferrum server (in /tmp/mq-rabbitmq-prof) and
 * its Redis's INFO commandstats per phase (µs per message).
 * BENCH_MESSAGES (default 100,000) scales it, BENCH_ROUNDS (default 4; 2 in a smoke run) sets the rounds per side;
 * BENCH_RABBITMQ_KEEP=1 leaves a node it started running.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { sleep } from '../src/core/time.js';
import { serveInChild } from './lib/child-server.js';
import { check, Client, type Target } from './lib/mq-client.js';
import { cpuSecondsOfAll } from './lib/proc-cpu.js';
import { serveReference } from './lib/reference-server.js';
import { printCommandStats, resetCommandStats } from './lib/redis-commandstats.js';
import { figure, sized } from './lib/report.js';

const MESSAGES = sized('BENCH_MESSAGES', 100_000, 2_000);
const WARM_UP = Math.min(MESSAGES, 10_000);
// Ferrum's consume paths reach their steady CPU per message (V8's optimized code, a grown young
// generation) only after some 50,000 messages: 5 warm-up passes, so that the first consume figure
// measured is not the one that pays for it (a running server has long paid it).
const WARM_UP_PASSES = 5;
const ROUNDS = sized('BENCH_ROUNDS', 4, 2);
const BATCH = 100;
const CLIENTS = 4;
const RABBITMQ_PORT = Number(process.env.BENCH_RABBITMQ_PORT ?? 5673);
const RABBITMQ_NODE = `ferrum-bench-${RABBITMQ_PORT}@localhost`;
const RABBITMQ_URL = `amqp://guest:guest@127.0.0.1:${RABBITMQ_PORT}`;

/** The two rows: both systems persisting what they confirm (each its own default way), or neither. */
type Durability = 'durable' | 'transient';
const DURABILITIES: Durability[] = ['durable', 'transient'];
const queueOf = (durability: Durability) => `ferrum-bench-${durability}`;
const RABBITMQ_DIR = path.join(os.tmpdir(), `ferrum-bench-rabbitmq-${RABBITMQ_PORT}`);
const RABBITMQ_PID_FILE = path.join(RABBITMQ_DIR, 'rabbitmq.pid');

const bodyOf = (i: number) => `benchmark message ${i} ${'x'.repeat(64)}`;

interface Phase {
  messages: number;
  seconds: number;
  /** Server CPU seconds spent during the phase. */
  cpu: number;
}

/** Runs `work` while counting the CPU of `pids`, adding to `into`. */
async function timed(into: Phase, pids: () => number[], work: () => Promise<number>): Promise<void> {
  const cpuBefore = cpuSecondsOfAll(pids());
  const started = performance.now();
  into.messages += await work();
  into.seconds += (performance.now() - started) / 1000;
  into.cpu += cpuSecondsOfAll(pids()) - cpuBefore;
}

/** A Ferrum side and its RabbitMQ reference, each given a count of messages to work through. */
interface Side {
  pids: () => number[];
  work: (messages: number) => Promise<number>;
}

/**
 * Both sides through MESSAGES messages in ROUNDS rounds each, alternating (F R R F ...) so that
 * both see the same load on the machine; each side's rounds summed. With BENCH_PROFILE, prints
 * what Ferrum's Redis spent on it (`redis`: a client of it).
 */
async function alternating(
  name: string,
  ferrum: Side,
  rabbit: Side,
  redis: Redis,
): Promise<{ ferrum: Phase; rabbit: Phase }> {
  if (process.env.BENCH_PROFILE) await resetCommandStats(redis);
  const sums = { ferrum: { messages: 0, seconds: 0, cpu: 0 }, rabbit: { messages: 0, seconds: 0, cpu: 0 } };
  for (let round = 0, done = 0; round < ROUNDS; round++) {
    const count = Math.round((MESSAGES * (round + 1)) / ROUNDS) - done;
    const runFerrum = () => timed(sums.ferrum, ferrum.pids, () => ferrum.work(count));
    const runRabbit = () => timed(sums.rabbit, rabbit.pids, () => rabbit.work(count));
    if (round % 2 === 0) {
      await runFerrum();
      await runRabbit();
    } else {
      await runRabbit();
      await runFerrum();
    }
    done += count;
  }
  if (process.env.BENCH_PROFILE) {
    console.log(`  ${name}: Ferrum's Redis`);
    await printCommandStats(redis, MESSAGES);
  }
  return sums;
}

const rate = (p: Phase) => p.messages / p.seconds;
const cpuPer100k = (p: Phase) => (p.cpu * 100_000) / p.messages;

function show(label: string, p: Phase): void {
  console.log(
    `  ${label.padEnd(44)} ${Math.round(rate(p)).toLocaleString('en-US').padStart(8)} msg/s   server CPU ${cpuPer100k(p).toFixed(2)} s per 100k messages`,
  );
}

/** Hands out batches of message numbers to concurrent clients until `total` are taken. */
function batches(total: number): () => number[] | null {
  let next = 0;
  return () => {
    if (next >= total) return null;
    const size = Math.min(BATCH, total - next);
    const batch = Array.from({ length: size }, (_, i) => next + i);
    next += size;
    return batch;
  };
}

// ---- Ferrum

async function ferrumProduce(client: Client, queue: string, total = MESSAGES): Promise<number> {
  const take = batches(total);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let batch = take(); batch; batch = take()) {
        const messages = batch.map((i) => ({ body: bodyOf(i) }));
        check(await client.request('POST', `${queue}/messages`, { messages }), 201);
      }
    }),
  );
  return total;
}

/** Consumes `total` messages of a queue holding at least that many, in batches of 100. */
async function ferrumConsume(client: Client, queue: string, deleteOnReserve: boolean, total: number): Promise<number> {
  const take = batches(total);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let batch = take(); batch; batch = take()) {
        const n = batch.length;
        const reserved = check(
          await client.request('POST', `${queue}/reservations`, { n, delete: deleteOnReserve }),
          200,
        ).messages as Array<{ id: string; reservation_id: string }>;
        if (reserved.length !== n) throw new Error(`reserved ${reserved.length} of ${n} messages`);
        if (!deleteOnReserve) {
          const ids = reserved.map((message) => ({ id: message.id, reservation_id: message.reservation_id }));
          check(await client.request('DELETE', `${queue}/messages`, { ids }), 200);
        }
      }
    }),
  );
  return total;
}

async function startFerrum(
  durability: Durability,
): Promise<{ child: ChildProcess; target: Target; redis: Redis; pids: () => number[] }> {
  const child = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: 'server', BENCH_REDIS_DURABILITY: durability },
    execArgv: [
      ...process.execArgv,
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/mq-rabbitmq-prof'] : []),
    ],
  });
  const target = await new Promise<Target>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Target));
    child.once('exit', (code) => reject(new Error(`the server child exited with ${code}`)));
  });
  const redis = new Redis(target.redisUrl);
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
  return { child, target, redis, pids: () => [child.pid!, redisPid] };
}

/** The produce floor: a bare node:http server with one script, on Ferrum's Redis, in a process of its own. */
async function startFloor(target: Target): Promise<{ child: ChildProcess; client: Client }> {
  const child = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: 'reference', BENCH_REFERENCE_REDIS_URL: target.redisUrl },
  });
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string }));
    child.once('exit', (code) => reject(new Error(`the floor server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return { child, client: new Client({ ...target, url }, CLIENTS) };
}

async function stopFerrum(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
}

// ---- RabbitMQ

interface RabbitNode {
  pids: () => number[];
  stop: () => Promise<void>;
}

async function connectable(): Promise<boolean> {
  try {
    const connection = await amqp.connect(RABBITMQ_URL);
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

/** The private node on RABBITMQ_PORT: used when running, else installed if need be and started. */
async function startRabbit(): Promise<RabbitNode> {
  // The Erlang VM (beam.smp) writes its process id there once booted.
  const beam = () => {
    const pid = Number(fs.readFileSync(RABBITMQ_PID_FILE, 'utf8').trim());
    if (!pid) throw new Error(`no RabbitMQ process id in ${RABBITMQ_PID_FILE}`);
    return [pid];
  };
  if (await connectable()) return { pids: beam, stop: async () => {} };
  execFileSync('bash', ['scripts/setup-machine.sh', 'rabbitmq'], { stdio: 'inherit' });
  const dir = RABBITMQ_DIR;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const log = fs.openSync(path.join(dir, 'server.log'), 'a');
  console.log(`starting RabbitMQ node ${RABBITMQ_NODE} (data and logs in ${dir})`);
  const started = performance.now();
  const server = spawn('/usr/lib/rabbitmq/bin/rabbitmq-server', [], {
    env: {
      ...process.env,
      HOME: dir, // its Erlang cookie
      RABBITMQ_NODENAME: RABBITMQ_NODE,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(RABBITMQ_PORT),
      RABBITMQ_DIST_PORT: String(RABBITMQ_PORT + 20000),
      ERL_EPMD_ADDRESS: '127.0.0.1',
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'log'),
      RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_PID_FILE: RABBITMQ_PID_FILE,
    },
    stdio: ['ignore', log, log],
    detached: true,
  });
  let exited = false;
  server.once('exit', () => (exited = true));
  const deadline = performance.now() + 300_000;
  while (!(await connectable())) {
    if (exited) throw new Error(`RabbitMQ exited while starting; see ${dir}/server.log`);
    if (performance.now() > deadline) throw new Error(`RabbitMQ did not start within 300 s; see ${dir}/server.log`);
    await sleep(250);
  }
  console.log(`RabbitMQ ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return {
    pids: beam,
    stop: async () => {
      if (process.env.BENCH_RABBITMQ_KEEP === '1') {
        server.unref();
        return;
      }
      for (const pid of beam()) process.kill(pid, 'SIGTERM');
      const until = performance.now() + 60_000;
      while (!exited && performance.now() < until) await sleep(100);
      if (!exited) process.kill(-server.pid!, 'SIGKILL');
    },
  };
}

async function rabbitProduce(durability: Durability, total = MESSAGES): Promise<number> {
  const take = batches(total);
  const persistent = durability === 'durable';
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const connection = await amqp.connect(RABBITMQ_URL);
      const channel = await connection.createConfirmChannel();
      for (let batch = take(); batch; batch = take()) {
        for (const i of batch) channel.sendToQueue(queueOf(durability), Buffer.from(bodyOf(i)), { persistent });
        await channel.waitForConfirms();
      }
      await connection.close();
    }),
  );
  return total;
}

/**
 * Consumes `total` messages with prefetch 100 on 4 channels. `batched`: one ack with `multiple`
 * per 100 messages of a channel (and one for the rest at the end), as RabbitMQ's experts run it;
 * `each`: one ack per message. Messages delivered past `total` are left unacknowledged: closing
 * the channels puts them back on the queue for the next round.
 */
async function rabbitConsume(durability: Durability, acks: 'batched' | 'each', total: number): Promise<number> {
  const connections = await Promise.all(Array.from({ length: CLIENTS }, () => amqp.connect(RABBITMQ_URL)));
  let consumed = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const channels = await Promise.all(
    connections.map(async (connection) => {
      const channel = await connection.createChannel();
      await channel.prefetch(BATCH);
      const state = { channel, unacked: null as amqp.ConsumeMessage | null, pending: 0 };
      await channel.consume(
        queueOf(durability),
        (message) => {
          if (!message || consumed === total) return;
          if (acks === 'each') channel.ack(message);
          else if (++state.pending === BATCH) {
            channel.ack(message, true);
            state.pending = 0;
            state.unacked = null;
          } else state.unacked = message;
          consumed += 1;
          if (consumed === total) done();
        },
        { noAck: false },
      );
      return state;
    }),
  );
  await finished;
  // Up to each channel's last counted message (deliveries on a channel come in order).
  for (const { channel, unacked } of channels) if (unacked) channel.ack(unacked, true);
  await Promise.all(connections.map((connection) => connection.close()));
  return consumed;
}

/** An empty queue of the row's durability. */
async function prepareRabbitQueue(durability: Durability): Promise<void> {
  const connection = await amqp.connect(RABBITMQ_URL);
  const channel = await connection.createChannel();
  await channel.assertQueue(queueOf(durability), { durable: durability === 'durable' });
  await channel.purgeQueue(queueOf(durability));
  await connection.close();
}

// ---- Both, in alternating rounds

/** A Ferrum figure and its RabbitMQ reference, measured in the same rounds. */
interface Pair {
  ferrum: Phase;
  rabbit: Phase;
}

interface Row {
  produce: Pair;
  /** Ferrum's produce beside its floor (bench/lib/reference-server.ts), in the same rounds. */
  produceFloor: { ferrum: Phase; floor: Phase };
  /** Ferrum's reserve n=100 + batch delete beside RabbitMQ's batched acks. */
  consume: Pair;
  /** Ferrum's reserve n=100 with delete: true beside RabbitMQ's batched acks. */
  consumeDeleting: Pair;
  /** Ferrum's reserve + delete beside RabbitMQ acking each message (the transient row only). */
  consumeEachAck?: Pair;
}

async function benchRow(node: RabbitNode, durability: Durability): Promise<Row> {
  const { child, target, redis, pids } = await startFerrum(durability);
  const client = new Client(target, CLIENTS);
  const ferrum = (work: Side['work']): Side => ({ pids, work });
  const rabbit = (work: Side['work']): Side => ({ pids: node.pids, work });
  const queue = 'compare';
  try {
    await prepareRabbitQueue(durability);
    // Warm-up: JIT, Redis's script cache, RabbitMQ's queue process, as in running servers.
    for (let pass = 0; pass < WARM_UP_PASSES; pass++) {
      await ferrumProduce(client, 'warm-up', WARM_UP);
      await ferrumConsume(client, 'warm-up', false, WARM_UP);
      await rabbitProduce(durability, WARM_UP);
      await rabbitConsume(durability, 'batched', WARM_UP);
    }
    const refill = async () => {
      await ferrumProduce(client, queue);
      await rabbitProduce(durability);
    };
    const rabbitBatched = rabbit((n) => rabbitConsume(durability, 'batched', n));
    const measure = (name: string, ours: Side, theirs: Side) =>
      alternating(`${durability} ${name}`, ours, theirs, redis);
    const produce = await measure(
      'produce',
      ferrum((n) => ferrumProduce(client, queue, n)),
      rabbit((n) => rabbitProduce(durability, n)),
    );
    const produceFloor = await measureFloor(client, target, pids, redis);
    const consume = await measure(
      'consume (reserve + delete)',
      ferrum((n) => ferrumConsume(client, queue, false, n)),
      rabbitBatched,
    );
    await refill();
    const consumeDeleting = await measure(
      'consume (delete: true)',
      ferrum((n) => ferrumConsume(client, queue, true, n)),
      rabbitBatched,
    );
    if (durability !== 'transient') return { produce, produceFloor, consume, consumeDeleting };
    await refill();
    const consumeEachAck = await measure(
      'consume (reserve + delete, beside one ack each)',
      ferrum((n) => ferrumConsume(client, queue, false, n)),
      rabbit((n) => rabbitConsume(durability, 'each', n)),
    );
    return { produce, produceFloor, consume, consumeDeleting, consumeEachAck };
  } finally {
    client.close();
    redis.disconnect();
    await stopFerrum(child);
  }
}

/** Ferrum's produce beside its floor's, in alternating rounds (the floor in the reference's place). */
async function measureFloor(
  client: Client,
  target: Target,
  ferrumPids: () => number[],
  redis: Redis,
): Promise<Row['produceFloor']> {
  const floor = await startFloor(target);
  try {
    const redisPid = ferrumPids()[1]!;
    await ferrumProduce(floor.client, 'warm-up', WARM_UP);
    const sums = await alternating(
      'produce beside its floor',
      { pids: ferrumPids, work: (n) => ferrumProduce(client, 'beside-floor', n) },
      { pids: () => [floor.child.pid!, redisPid], work: (n) => ferrumProduce(floor.client, 'floor', n) },
      redis,
    );
    return { ferrum: sums.ferrum, floor: sums.rabbit };
  } finally {
    floor.client.close();
    floor.child.send('stop');
  }
}

async function rabbitVersion(): Promise<string> {
  const connection = await amqp.connect(RABBITMQ_URL);
  const version = String(connection.connection.serverProperties.version ?? 'unknown');
  await connection.close();
  return version;
}

const ROW_TITLES: Record<Durability, { rabbit: string; ferrum: string }> = {
  durable: {
    rabbit: 'durable queue, persistent messages',
    ferrum: 'Redis with AOF, appendfsync everysec (the managed Redis default)',
  },
  transient: { rabbit: 'non-durable queue, transient messages', ferrum: 'Redis without persistence' },
};

function report(durability: Durability, version: string, row: Row): void {
  const titles = ROW_TITLES[durability];
  console.log(`${durability}:`);
  console.log(` RabbitMQ ${version} (${titles.rabbit}, confirms per 100, prefetch 100, an ack with multiple per 100):`);
  show('produce', row.produce.rabbit);
  show('consume (beside reserve + delete)', row.consume.rabbit);
  show('consume (beside delete: true)', row.consumeDeleting.rabbit);
  if (row.consumeEachAck) show('consume, one ack per message', row.consumeEachAck.rabbit);
  console.log(` Ferrum (${titles.ferrum}; v3 over HTTP keep-alive, batches of 100):`);
  show('produce', row.produce.ferrum);
  show('consume (reserve n=100 + delete batch)', row.consume.ferrum);
  show('consume (reserve n=100, delete: true)', row.consumeDeleting.ferrum);
  if (row.consumeEachAck) show('consume (reserve + delete, beside one ack each)', row.consumeEachAck.ferrum);
  console.log(` produce floor (bare node:http + one script per batch, on Ferrum's Redis):`);
  show('floor produce', row.produceFloor.floor);
  show('Ferrum produce (beside the floor)', row.produceFloor.ferrum);
  const reference = `RabbitMQ ${version} in alternating rounds of the same run (${titles.rabbit}, batched acks)`;
  const ratio = (name: string, pair: Pair, target?: number) =>
    figure(`${durability}: ${name} Ferrum/RabbitMQ`, rate(pair.ferrum) / rate(pair.rabbit), 'x', {
      better: 'higher',
      ...(target === undefined ? {} : { target }),
      reference,
    });
  ratio('produce', row.produce, 3);
  const floorRate = rate(row.produceFloor.floor);
  figure(`${durability}: produce Ferrum/floor`, rate(row.produceFloor.ferrum) / floorRate, 'x', {
    better: 'higher',
    reference: 'the same posts to a bare node:http server with one script on the same Redis, alternating rounds',
  });
  figure(`${durability}: produce floor/RabbitMQ`, floorRate / rate(row.produce.rabbit), 'x', {
    better: 'higher',
    reference: `${reference}; what the stack alone reaches, beside the 3x target`,
  });
  ratio('consume (reserve + delete)', row.consume, 1);
  ratio('consume (reserve, delete: true)', row.consumeDeleting, 2);
  if (row.consumeEachAck)
    figure(
      `${durability}: consume (reserve + delete) Ferrum/RabbitMQ acking each message`,
      rate(row.consumeEachAck.ferrum) / rate(row.consumeEachAck.rabbit),
      'x',
      {
        better: 'higher',
        reference: `RabbitMQ ${version} in alternating rounds of the same run (${titles.rabbit}, one ack per message)`,
      },
    );
  // Each phase's rate and server CPU; the CPU figure of delete: true keeps its shorter name.
  const phases: Array<[string, Phase | undefined, string?]> = [
    ['Ferrum produce', row.produce.ferrum],
    ['Ferrum consume (reserve + delete)', row.consume.ferrum],
    ['Ferrum consume (reserve, delete: true)', row.consumeDeleting.ferrum, 'Ferrum consume (delete: true)'],
    ['RabbitMQ produce', row.produce.rabbit],
    ['RabbitMQ consume (batched acks)', row.consume.rabbit],
    ['RabbitMQ consume (one ack per message)', row.consumeEachAck?.rabbit],
  ];
  for (const [name, p] of phases) if (p) figure(`${durability}: ${name}`, rate(p), 'msg/s', { better: 'higher' });
  const cpus = [
    ...phases.map(([name, p, cpuName]) => [cpuName ?? name, p] as const),
    ['produce floor', row.produceFloor.floor] as const,
  ];
  for (const [name, p] of cpus)
    if (p) figure(`${durability}: ${name} server CPU s per 100k msgs`, cpuPer100k(p), 's', { better: 'lower' });
}

async function main(): Promise<void> {
  console.log(
    `message queue: Ferrum beside RabbitMQ, ${MESSAGES.toLocaleString('en-US')} messages of ${bodyOf(0).length} bytes, batches of ${BATCH}, ${CLIENTS} clients, ${ROUNDS} alternating rounds per side; ` +
      `${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  const node = await startRabbit();
  const rows: Array<{ durability: Durability; row: Row }> = [];
  let version = 'unknown';
  try {
    version = await rabbitVersion();
    for (const durability of DURABILITIES) rows.push({ durability, row: await benchRow(node, durability) });
  } finally {
    await node.stop();
  }
  for (const { durability, row } of rows) report(durability, version, row);
  console.log(
    `load average at end: ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
}

const role =
  process.env.BENCH_ROLE === 'server'
    ? serveInChild({}, { persistent: process.env.BENCH_REDIS_DURABILITY === 'durable' })
    : process.env.BENCH_ROLE === 'reference'
      ? serveReference('node-http', process.env.BENCH_REFERENCE_REDIS_URL!)
      : main();
role.then(
  () => {
    // A server child serves until its parent tells it to stop.
    if (process.env.BENCH_ROLE === undefined) process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
