/**
 * Ferrum's message queue beside RabbitMQ, on this machine in one run, with the same message
 * count, size and batch, at two durability levels (rows):
 * - durable: Ferrum on a Redis with AOF fsynced every second (its managed Redis's default);
 *   RabbitMQ with persistent messages on a durable queue.
 * - transient: no persistence on either (a Redis without AOF or snapshots; transient messages
 *   on a non-durable queue).
 * RabbitMQ (Debian's package, installed when absent and started as a private node on
 * 127.0.0.1:BENCH_RABBITMQ_PORT, 5673, data in /tmp/ferrum-bench-rabbitmq-<port>, when not
 * running) is driven as its experts do: publisher confirms per 100, prefetch 100 and one ack
 * with `multiple` per 100 messages. The transient row also consumes with one ack per message,
 * labelled as such. Ferrum: v3 over HTTP keep-alive, batches of 100 (post; reserve n=100 then
 * delete the batch, and reserve with delete: true), its server (controller + redis-server) in a
 * process of its own, one HTTP worker (FERRUM_WORKERS=1: on this 2-core machine two workers cost
 * more Node CPU per message, 18-23 against 11-14 µs for ack-and-next under load, the cores being
 * shared with Redis and the clients). 4 clients on each side, all in this process: amqplib for
 * RabbitMQ, undici's Pool for Ferrum and the floor (bench/lib/mq-pool-client.ts: about half the
 * CPU per request of node:http's client, which took cores the servers need).
 * The floor: the same requests to a bare node:http server doing one script per request on
 * Ferrum's Redis (bench/lib/reference-server.ts: store the batch; pop n and record their
 * reservations, or delete them with delete: true; delete the batch whose reservation ids
 * match), nothing else, so that the report shows what the stack alone reaches.
 * Ferrum, RabbitMQ and the floor run each phase in alternating rounds (F R L, L R F, ...) of an
 * equal share of the messages, summed per side, so that other work on the machine weighs on all
 * alike. Each consume phase checks that RabbitMQ's queue holds exactly the backlog the others'
 * queues hold. Prints msg/s, the ratios and each system's server CPU seconds per 100,000
 * messages from /proc (figures that load on the machine moves less).
 *
 * RabbitMQ's batched-ack consume is one reference per row, pooled over the rounds of both
 * consume phases (beside reserve + delete and beside delete: true; each phase's own figure is
 * printed too). Why: draining the same 100,000-message backlog the same way, RabbitMQ 3.10 spends
 * either ~1.6-2.2 s or ~0.7-0.9 s of CPU per 100k. In the dear state 30-55 % of beam's CPU is on
 * its dirty CPU schedulers, where Erlang collects large heaps: the classic queue process
 * (rabbit_amqqueue_process, the only process with long GCs) holds the backlog in memory and
 * collects it in full again and again as it drains; 8-20 % in the cheap state. The cheap state
 * follows an idle pause long enough for the queue process to hibernate (which compacts its heap;
 * after 1 s idle at first, up to 10 s and more once it was woken early a few times): in
 * RabbitMQ-only runs, a drain right after the burst that filled the queue was dear every time
 * (over 20 drains), after 12 s idle cheap 4 times of 4. The previous layout measured the produce floor in a phase of its
 * own between produce and the first consume, giving RabbitMQ several idle seconds there only:
 * 0.70 s in that phase, 1.63 s in the next, in the same run. Now every consume phase follows the
 * backlog's production without a pause, as a consumer keeping up after a burst would: in two
 * full runs 7 of 8 phases were dear (1.85-2.03 s), one cheap (0.91 s); pooling weighs such a
 * stray phase half. Waiting for the hibernation before each phase did not make the phases cheap
 * reliably beside the other sides' rounds, so it is not done. Looked at and left as RabbitMQ
 * ships them: the schedulers do not busy-wait (Debian's rabbitmq-env passes
 * +sbwt/+sbwtdcpu/+sbwtdio none); unbinding them (+stbt u) changed nothing; no memory alarm
 * (watermark 0.4 of 24 GB, 0.2 GB used); a lazy queue consumed no cheaper (1.5-1.8 s) and
 * produced dearer (2.9 s); classic queue version 2 (opt-in in 3.10) consumed the same.
 * BENCH_PROFILE prints each round's rate, CPU and beam's dirty-scheduler share, which shows the
 * state of each phase.
 * So that the report also shows RabbitMQ in its cheap state, each row ends with rested drains:
 * queues filled with the backlog, BENCH_REST_SECONDS (15; 1 in a smoke run) of idle for
 * RabbitMQ's queue process to hibernate, then RabbitMQ (batched acks) drained, then Ferrum in one
 * mode (reserve + delete or ack-and-next, by turns) and, beside reserve + delete, the floor;
 * BENCH_REST_DRAINS (3; 1 in a smoke run) such cycles per Ferrum mode, each side's median drain
 * printed as "after an idle pause". RabbitMQ's median over all its rested drains is the one
 * after-idle reference of both Ferrum modes. Why: one drain each was noise, and the previous
 * layout (one pause for reserve + delete, another for ack-and-next) gave RabbitMQ 63.3k and
 * 19.7k msg/s after the same pause in one run (durable; 94.4k and 64.8k transient). The likely
 * cause, not proven: the classic queue runs on gen_server2, whose hibernate backoff (1 s at
 * first) grows each time the process is woken soon after hibernating, as alternating rounds do,
 * so whether a later pause ends hibernated depends on the run's history; and on a loaded machine
 * (load 15-20) a drain after hibernating was dear once too. BENCH_PROFILE prints the process's
 * state before each rested drain. The pause, the backlog (100,000 in memory, none paged),
 * prefetch and ack batch (100, Ferrum's batch) are the same for every side and every cycle.
 * BENCH_PROFILE=1 also writes a --cpu-prof profile of the Ferrum server (in
 * /tmp/mq-rabbitmq-prof) and prints its Redis's INFO commandstats per phase for Ferrum and for
 * the floor, each over its own rounds (µs per message).
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
import { check, type Target } from './lib/mq-client.js';
import { PoolClient } from './lib/mq-pool-client.js';
import { compactAof } from './lib/redis-aof.js';
import { cpuSecondsOfAll, threadCpuSeconds } from './lib/proc-cpu.js';
import { serveReference } from './lib/reference-server.js';
import { addCommandStats, printStats, readCommandStats, type CommandStats } from './lib/redis-commandstats.js';
import { figure, sized } from './lib/report.js';

const MESSAGES = sized('BENCH_MESSAGES', 100_000, 2_000);
const WARM_UP = Math.min(MESSAGES, 10_000);
// Ferrum's consume paths reach their steady CPU per message (V8's optimized code, a grown young
// generation) only after some 50,000 messages: 5 warm-up passes, so that the first consume figure
// measured is not the one that pays for it (a running server has long paid it).
const WARM_UP_PASSES = 5;
const ROUNDS = sized('BENCH_ROUNDS', 4, 2);
const REST_SECONDS = sized('BENCH_REST_SECONDS', 15, 1);
const REST_DRAINS = sized('BENCH_REST_DRAINS', 3, 1);
const BATCH = 100;
/** The standard two-request consume after an idle pause, against its floor drained after the same pause (issue #48). */
const RESTED_FLOOR_TARGET = 0.95;
const CLIENTS = 4;
const RABBITMQ_PORT = Number(process.env.BENCH_RABBITMQ_PORT ?? 5673);
const RABBITMQ_NODE = `ferrum-bench-${RABBITMQ_PORT}@localhost`;
const RABBITMQ_URL = `amqp://guest:guest@127.0.0.1:${RABBITMQ_PORT}`;

/** The two rows: both systems persisting what they confirm (each its own default way), or neither. */
type Durability = 'durable' | 'transient';
/** BENCH_ROWS (comma-separated, e.g. `transient`) runs only those rows: both by default. */
const DURABILITIES = (['durable', 'transient'] as Durability[]).filter((row) =>
  (process.env.BENCH_ROWS ?? 'durable,transient').split(',').includes(row),
);
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

/** One system measured in a phase: Ferrum, its RabbitMQ reference or its floor. */
interface Side {
  name: string;
  pids: () => number[];
  work: (messages: number) => Promise<number>;
  /** Whether it runs on Ferrum's Redis (BENCH_PROFILE prints what Redis spent on it). */
  onRedis: boolean;
  /** With BENCH_PROFILE, the part of its CPU seconds so far that each round prints beside its own. */
  part?: { name: string; seconds: () => number };
}

/**
 * Every side through MESSAGES messages in ROUNDS rounds each, alternating (F R L, L R F, ...) so
 * that all see the same load on the machine; each side's rounds summed. With BENCH_PROFILE,
 * prints what Ferrum's Redis (`redis`: a client of it) spent on each side that runs on it,
 * counted over that side's rounds only.
 */
async function alternating(name: string, sides: Side[], redis: Redis): Promise<Phase[]> {
  const profile = Boolean(process.env.BENCH_PROFILE);
  const sums = sides.map(() => ({ messages: 0, seconds: 0, cpu: 0 }));
  const stats: CommandStats[] = sides.map(() => new Map());
  const inOrder = sides.map((_, i) => i);
  for (let round = 0, done = 0; round < ROUNDS; round++) {
    const count = Math.round((MESSAGES * (round + 1)) / ROUNDS) - done;
    for (const i of round % 2 === 0 ? inOrder : [...inOrder].reverse()) {
      const side = sides[i]!;
      const before = profile && side.onRedis ? await readCommandStats(redis) : undefined;
      const sum = { ...sums[i]! };
      const partBefore = side.part?.seconds() ?? 0;
      await timed(sums[i]!, side.pids, () => side.work(count));
      if (before) addCommandStats(stats[i]!, before, await readCommandStats(redis));
      if (profile) printRound(name, side, round, sums[i]!, sum, side.part && side.part.seconds() - partBefore);
    }
    done += count;
  }
  if (profile)
    sides.forEach((side, i) => {
      if (!side.onRedis) return;
      console.log(`  ${name}: ${side.name} on Ferrum's Redis`);
      printStats(stats[i]!, MESSAGES);
    });
  return sums;
}

/** One side's round (`after` minus `before`), and the given part of its CPU. */
function printRound(phase: string, side: Side, round: number, after: Phase, before: Phase, part?: number): void {
  const cpu = after.cpu - before.cpu;
  const messages = after.messages - before.messages;
  const share = part === undefined ? '' : `, ${side.part!.name} ${((100 * part) / cpu).toFixed(0)} %`;
  console.log(
    `  ${phase}: ${side.name} round ${round + 1}: ${Math.round(messages / (after.seconds - before.seconds))} msg/s, CPU ${((cpu * 100_000) / messages).toFixed(2)} s per 100k${share}`,
  );
}

const rate = (p: Phase) => p.messages / p.seconds;
const pooled = (a: Phase, b: Phase): Phase => ({
  messages: a.messages + b.messages,
  seconds: a.seconds + b.seconds,
  cpu: a.cpu + b.cpu,
});
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

async function ferrumProduce(client: PoolClient, queue: string, total = MESSAGES): Promise<number> {
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

/**
 * How a Ferrum consumer finishes a batch: a batch delete after it (two requests per batch), delete:
 * true on the reserve, or ack-and-next (the next reserve's delete_reserved; one request per batch).
 */
type ConsumeMode = 'reserve + delete' | 'delete: true' | 'ack-and-next';

type Reserved = Array<{ id: string; reservation_id: string }>;
const deleteEntries = (reserved: Reserved) =>
  reserved.map((message) => ({ id: message.id, reservation_id: message.reservation_id }));

/** Consumes `total` messages of a queue holding at least that many, in batches of 100. */
async function ferrumConsume(client: PoolClient, queue: string, mode: ConsumeMode, total: number): Promise<number> {
  const take = batches(total);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      let processed: Reserved = [];
      for (let batch = take(); batch; batch = take()) {
        const n = batch.length;
        const acks = mode === 'ack-and-next' ? { delete_reserved: deleteEntries(processed) } : {};
        const answer = check(
          await client.request('POST', `${queue}/reservations`, { n, delete: mode === 'delete: true', ...acks }),
          200,
        );
        processed = answer.messages as Reserved;
        if (processed.length !== n) throw new Error(`reserved ${processed.length} of ${n} messages`);
        if (answer.not_deleted?.length) throw new Error(`not deleted: ${JSON.stringify(answer.not_deleted[0])}`);
        if (mode === 'reserve + delete') {
          check(await client.request('DELETE', `${queue}/messages`, { ids: deleteEntries(processed) }), 200);
          processed = [];
        }
      }
      // The last batch of an ack-and-next consumer: one batch delete when it stops.
      if (mode === 'ack-and-next' && processed.length > 0)
        check(await client.request('DELETE', `${queue}/messages`, { ids: deleteEntries(processed) }), 200);
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

/** The floor: a bare node:http server with one script per request, on Ferrum's Redis, in a process of its own. */
async function startFloor(target: Target): Promise<{ child: ChildProcess; client: PoolClient }> {
  const child = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: 'reference', BENCH_REFERENCE_REDIS_URL: target.redisUrl },
  });
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string }));
    child.once('exit', (code) => reject(new Error(`the floor server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return { child, client: new PoolClient({ ...target, url }, CLIENTS) };
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
 * the channels puts them back on the queue for the next round (and nothing else: the queue holds
 * exactly what the other sides' queues hold).
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
  // Channels first: a channel's close follows its acks on the wire, while a connection's close
  // can overtake acks still queued in amqplib, and the broker would requeue those messages.
  await Promise.all(channels.map(({ channel }) => channel.close()));
  await Promise.all(connections.map((connection) => connection.close()));
  return consumed;
}

/**
 * Whether the row's queue process is hibernating, and its heap, from the node itself
 * (rabbitmqctl eval; reading a process's info does not wake it). For BENCH_PROFILE only: each
 * call boots an Erlang VM (~1.5 s of CPU).
 */
function rabbitQueueProcess(durability: Durability): string {
  const cookie = fs.readFileSync(path.join(RABBITMQ_DIR, '.erlang.cookie'), 'utf8').trim();
  const expression =
    `[erlang:process_info(amqqueue:get_pid(Q), [current_function, total_heap_size]) || ` +
    `Q <- rabbit_amqqueue:list(), element(4, amqqueue:get_name(Q)) =:= <<"${queueOf(durability)}">>].`;
  try {
    const answer = execFileSync('rabbitmqctl', ['--erlang-cookie', cookie, '-n', RABBITMQ_NODE, 'eval', expression]);
    const text = answer.toString();
    const words = Number(/total_heap_size,(\d+)/.exec(text)?.[1] ?? 0);
    const state = text.includes('{erlang,hibernate,3}') ? 'hibernating' : 'awake';
    return `RabbitMQ's queue process ${state}, heap ${Math.round((words * 8) / 1e6)} MB`;
  } catch (error) {
    return `RabbitMQ's queue process: unknown (${String(error).split('\n')[0]})`;
  }
}

/** Throws unless RabbitMQ's queue holds `messages` ready messages (what the other sides' queues hold). */
async function expectRabbitBacklog(durability: Durability, messages: number): Promise<void> {
  const connection = await amqp.connect(RABBITMQ_URL);
  const channel = await connection.createChannel();
  const { messageCount } = await channel.checkQueue(queueOf(durability));
  await connection.close();
  if (messageCount !== messages) throw new Error(`RabbitMQ's queue holds ${messageCount} messages, not ${messages}`);
}

/** An empty queue of the row's durability. */
async function prepareRabbitQueue(durability: Durability): Promise<void> {
  const connection = await amqp.connect(RABBITMQ_URL);
  const channel = await connection.createChannel();
  await channel.assertQueue(queueOf(durability), { durable: durability === 'durable' });
  await channel.purgeQueue(queueOf(durability));
  await connection.close();
}

// ---- All three, in alternating rounds

/** A Ferrum figure, its RabbitMQ reference and (for produce and batched consume) its floor, measured in the same rounds. */
interface Measured {
  ferrum: Phase;
  rabbit: Phase;
  floor?: Phase;
}

interface Row {
  produce: Measured;
  /** Ferrum's reserve n=100 + batch delete beside RabbitMQ's batched acks. */
  consume: Measured;
  /** Ferrum's reserve n=100 with delete: true beside RabbitMQ's batched acks. */
  consumeDeleting: Measured;
  /** Ferrum's reserve + delete beside RabbitMQ acking each message (the transient row only). */
  consumeEachAck?: Measured;
  /** Each side's drains of a backlog left idle for REST_SECONDS first (median drains). */
  rested: Rested;
  /** Ferrum's ack-and-next consume (one reserve with delete_reserved per batch) beside RabbitMQ's batched acks. */
  consumeAckNext: Measured;
}

/** The median drain of each side after an idle pause; RabbitMQ's is the reference of both Ferrum modes. */
interface Rested {
  rabbit: Phase;
  /** Ferrum's reserve + delete. */
  ferrum: Phase;
  ferrumAckNext: Phase;
  floor: Phase;
}

/** The drain with the median rate (odd count), or the two middle ones pooled (even count). */
function median(drains: Phase[]): Phase {
  const sorted = [...drains].sort((a, b) => rate(a) - rate(b));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : pooled(sorted[middle - 1]!, sorted[middle]!);
}

/** One drain of MESSAGES messages by `side`, printed with BENCH_PROFILE. */
async function drain(side: Side, cycle: number): Promise<Phase> {
  const phase = { messages: 0, seconds: 0, cpu: 0 };
  const part = side.part?.seconds() ?? 0;
  await timed(phase, side.pids, () => side.work(MESSAGES));
  if (process.env.BENCH_PROFILE) {
    const idle = { messages: 0, seconds: 0, cpu: 0 };
    printRound('rested drain', side, cycle, phase, idle, side.part && side.part.seconds() - part);
  }
  return phase;
}

/**
 * 2 x REST_DRAINS cycles, each: fill RabbitMQ's queue and Ferrum's (and the floor's in reserve +
 * delete cycles), REST_SECONDS idle (RabbitMQ's queue process hibernates, see the header), then
 * drain RabbitMQ, then Ferrum in one mode (reserve + delete and ack-and-next by turns), then the
 * floor. Each Ferrum drain thus follows an idle server as RabbitMQ's does. Each side's figure is
 * its median drain; RabbitMQ's is over all its drains: one after-idle reference per row for both
 * of Ferrum's modes (one drain each was noise: 19.7k and 63.3k msg/s in one run).
 */
async function restedDrains(
  durability: Durability,
  sides: { rabbit: Side; ferrum: Side; ferrumAckNext: Side; floor: Side },
  fill: (withFloor: boolean) => Promise<void>,
): Promise<Rested> {
  const drains = { rabbit: [] as Phase[], ferrum: [] as Phase[], ferrumAckNext: [] as Phase[], floor: [] as Phase[] };
  for (let cycle = 0; cycle < 2 * REST_DRAINS; cycle++) {
    const ackNext = cycle % 2 === 1;
    await fill(!ackNext);
    await sleep(REST_SECONDS * 1000);
    if (process.env.BENCH_PROFILE) console.log(`  rested drain ${cycle + 1}: ${rabbitQueueProcess(durability)}`);
    drains.rabbit.push(await drain(sides.rabbit, cycle));
    if (ackNext) drains.ferrumAckNext.push(await drain(sides.ferrumAckNext, cycle));
    else {
      drains.ferrum.push(await drain(sides.ferrum, cycle));
      drains.floor.push(await drain(sides.floor, cycle));
    }
  }
  return {
    rabbit: median(drains.rabbit),
    ferrum: median(drains.ferrum),
    ferrumAckNext: median(drains.ferrumAckNext),
    floor: median(drains.floor),
  };
}

async function benchRow(node: RabbitNode, durability: Durability): Promise<Row> {
  const { child, target, redis, pids } = await startFerrum(durability);
  const client = new PoolClient(target, CLIENTS);
  const floor = await startFloor(target);
  const floorPids = () => [floor.child.pid!, pids()[1]!];
  const ferrum = (work: Side['work']): Side => ({ name: 'Ferrum', pids, work, onRedis: true });
  // Its dirty CPU schedulers run the garbage collections of large process heaps.
  const gc = { name: 'dirty CPU schedulers', seconds: () => threadCpuSeconds(node.pids()[0]!, /dirty_cpu/) };
  const rabbit = (work: Side['work']): Side => ({ name: 'RabbitMQ', pids: node.pids, work, onRedis: false, part: gc });
  const onFloor = (work: Side['work']): Side => ({ name: 'the floor', pids: floorPids, work, onRedis: true });
  const queue = 'compare';
  try {
    await prepareRabbitQueue(durability);
    // Warm-up: JIT, Redis's script cache, RabbitMQ's queue process, as in running servers.
    for (let pass = 0; pass < WARM_UP_PASSES; pass++) {
      await ferrumProduce(client, 'warm-up', WARM_UP);
      await ferrumConsume(client, 'warm-up', 'reserve + delete', WARM_UP);
      await ferrumProduce(client, 'warm-up', WARM_UP);
      await ferrumConsume(client, 'warm-up', 'ack-and-next', WARM_UP);
      await ferrumProduce(floor.client, 'warm-up', WARM_UP);
      await ferrumConsume(floor.client, 'warm-up', 'reserve + delete', WARM_UP);
      await rabbitProduce(durability, WARM_UP);
      await rabbitConsume(durability, 'batched', WARM_UP);
    }
    const refill = async (withFloor: boolean) => {
      await ferrumProduce(client, queue);
      if (withFloor) await ferrumProduce(floor.client, queue);
      await rabbitProduce(durability);
    };
    const rabbitBatched = rabbit((n) => rabbitConsume(durability, 'batched', n));
    const measure = async (name: string, sides: Side[]): Promise<Measured> => {
      if (name !== 'produce') await expectRabbitBacklog(durability, MESSAGES);
      const [ours, theirs, floors] = await alternating(`${durability} ${name}`, sides, redis);
      return { ferrum: ours!, rabbit: theirs!, ...(floors ? { floor: floors } : {}) };
    };
    const produce = await measure('produce', [
      ferrum((n) => ferrumProduce(client, queue, n)),
      rabbit((n) => rabbitProduce(durability, n)),
      onFloor((n) => ferrumProduce(floor.client, queue, n)),
    ]);
    const consume = await measure('consume (reserve + delete)', [
      ferrum((n) => ferrumConsume(client, queue, 'reserve + delete', n)),
      rabbitBatched,
      onFloor((n) => ferrumConsume(floor.client, queue, 'reserve + delete', n)),
    ]);
    await refill(true);
    const consumeDeleting = await measure('consume (delete: true)', [
      ferrum((n) => ferrumConsume(client, queue, 'delete: true', n)),
      rabbitBatched,
      onFloor((n) => ferrumConsume(floor.client, queue, 'delete: true', n)),
    ]);
    let consumeEachAck: Measured | undefined;
    if (durability === 'transient') {
      await refill(false);
      consumeEachAck = await measure('consume (reserve + delete, beside one ack each)', [
        ferrum((n) => ferrumConsume(client, queue, 'reserve + delete', n)),
        rabbit((n) => rabbitConsume(durability, 'each', n)),
      ]);
    }
    const ackAndNext = ferrum((n) => ferrumConsume(client, queue, 'ack-and-next', n));
    await refill(false);
    const consumeAckNext = await measure('consume (ack-and-next)', [ackAndNext, rabbitBatched]);
    const rested = await restedDrains(
      durability,
      {
        rabbit: rabbitBatched,
        ferrum: ferrum((n) => ferrumConsume(client, queue, 'reserve + delete', n)),
        ferrumAckNext: ackAndNext,
        floor: onFloor((n) => ferrumConsume(floor.client, queue, 'reserve + delete', n)),
      },
      // Checked before the pause: asking RabbitMQ's queue for its length wakes its process. The
      // AOF is compacted before the pause too, so that Redis's own rewrite (a fork writing the
      // whole dataset) does not fall on whichever drain crosses its threshold.
      async (withFloor) => {
        await refill(withFloor);
        await expectRabbitBacklog(durability, MESSAGES);
        if (durability === 'durable') await compactAof(redis);
      },
    );
    const eachAck = consumeEachAck ? { consumeEachAck } : {};
    return { produce, consume, consumeDeleting, ...eachAck, rested, consumeAckNext };
  } finally {
    client.close();
    floor.client.close();
    floor.child.send('stop');
    redis.disconnect();
    await stopFerrum(child);
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
  console.log(` floor (bare node:http + one script per request, on Ferrum's Redis):`);
  show('produce', row.produce.floor!);
  show('consume (reserve n=100 + delete batch)', row.consume.floor!);
  show('consume (reserve n=100, delete: true)', row.consumeDeleting.floor!);
  // RabbitMQ does the same work (a batched-ack consume of the same backlog) beside both of
  // Ferrum's consumes: one reference, both phases' rounds pooled (see the header).
  const rabbitConsume = pooled(row.consume.rabbit, row.consumeDeleting.rabbit);
  console.log(` RabbitMQ consume (batched acks), both phases:`);
  show('consume', rabbitConsume);
  console.log(
    ` after ${REST_SECONDS} s idle, median drains (${2 * REST_DRAINS} of RabbitMQ's, ${REST_DRAINS} of each other's):`,
  );
  show('RabbitMQ (batched acks)', row.rested.rabbit);
  show('Ferrum (reserve + delete)', row.rested.ferrum);
  show('floor (reserve + delete)', row.rested.floor);
  console.log(` ack-and-next (Ferrum: one reserve n=100 per batch, carrying the last batch's delete_reserved):`);
  show('Ferrum, right after the burst', row.consumeAckNext.ferrum);
  show('RabbitMQ beside it (batched acks)', row.consumeAckNext.rabbit);
  show(`Ferrum, after ${REST_SECONDS} s idle`, row.rested.ferrumAckNext);
  show(`RabbitMQ, after ${REST_SECONDS} s idle`, row.rested.rabbit);
  const reference = `RabbitMQ ${version} in alternating rounds of the same run (${titles.rabbit}, batched acks)`;
  const ratios = (name: string, measured: Measured, target: number, requests: string) => {
    const rabbit = name === 'produce' ? measured.rabbit : rabbitConsume;
    figure(`${durability}: ${name} Ferrum/RabbitMQ`, rate(measured.ferrum) / rate(rabbit), 'x', {
      better: 'higher',
      target,
      reference: name === 'produce' ? reference : `${reference}, pooled over both consume phases`,
    });
    figure(`${durability}: ${name} Ferrum/floor`, rate(measured.ferrum) / rate(measured.floor!), 'x', {
      better: 'higher',
      reference: `${requests} to a bare node:http server with one script per request on the same Redis, alternating rounds`,
    });
    figure(`${durability}: ${name} floor/RabbitMQ`, rate(measured.floor!) / rate(rabbit), 'x', {
      better: 'higher',
      reference: `${reference}; what the stack alone reaches, beside the ${target}x target`,
    });
  };
  ratios('produce', row.produce, 3, 'the same posts');
  ratios('consume (reserve + delete)', row.consume, 1, 'the same reserves and batch deletes');
  ratios('consume (reserve, delete: true)', row.consumeDeleting, 2, 'the same reserves');
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
  const restedReference = `RabbitMQ ${version} draining the same backlog after ${REST_SECONDS} s idle (${titles.rabbit}, batched acks), its median drain of ${2 * REST_DRAINS}`;
  figure(
    `${durability}: consume after an idle pause (reserve + delete) Ferrum/RabbitMQ`,
    rate(row.rested.ferrum) / rate(row.rested.rabbit),
    'x',
    {
      better: 'higher',
      reference: restedReference,
    },
  );
  figure(
    `${durability}: consume after an idle pause (reserve + delete) Ferrum/floor`,
    rate(row.rested.ferrum) / rate(row.rested.floor),
    'x',
    {
      better: 'higher',
      target: RESTED_FLOOR_TARGET,
      reference: `the same reserves and batch deletes to a bare node:http server with one script per request on the same Redis, each drain right after Ferrum's, after the same pause; its median drain of ${REST_DRAINS}`,
    },
  );
  figure(
    `${durability}: consume after an idle pause (reserve + delete) floor/RabbitMQ`,
    rate(row.rested.floor) / rate(row.rested.rabbit),
    'x',
    {
      better: 'higher',
      reference: `${restedReference}; what the stack alone reaches`,
    },
  );
  ackAndNextRatios(durability, version, row);
  // Each phase's rate and server CPU; the CPU figures of delete: true keep their shorter names.
  const phases: Array<[string, Phase | undefined, string?]> = [
    ['Ferrum produce', row.produce.ferrum],
    ['Ferrum consume (reserve + delete)', row.consume.ferrum],
    ['Ferrum consume (reserve, delete: true)', row.consumeDeleting.ferrum, 'Ferrum consume (delete: true)'],
    ['RabbitMQ produce', row.produce.rabbit],
    ['RabbitMQ consume (batched acks)', rabbitConsume],
    ['RabbitMQ consume (batched acks, beside reserve + delete)', row.consume.rabbit],
    ['RabbitMQ consume (batched acks, beside delete: true)', row.consumeDeleting.rabbit],
    ['RabbitMQ consume (one ack per message)', row.consumeEachAck?.rabbit],
    ['produce floor', row.produce.floor],
    ['consume floor (reserve + delete)', row.consume.floor],
    ['consume floor (reserve, delete: true)', row.consumeDeleting.floor, 'consume floor (delete: true)'],
    ['RabbitMQ consume after an idle pause (batched acks)', row.rested.rabbit],
    ['Ferrum consume after an idle pause (reserve + delete)', row.rested.ferrum],
    ['consume floor after an idle pause (reserve + delete)', row.rested.floor],
    ['Ferrum consume (ack-and-next)', row.consumeAckNext.ferrum],
    ['RabbitMQ consume (batched acks, beside ack-and-next)', row.consumeAckNext.rabbit],
    ['Ferrum consume after an idle pause (ack-and-next)', row.rested.ferrumAckNext],
  ];
  // RabbitMQ's and the floor's own rates say how fast this machine is (the report's header lists them).
  const machine = (name: string) => name.startsWith('RabbitMQ') || name.includes('floor');
  for (const [name, p] of phases)
    if (p) figure(`${durability}: ${name}`, rate(p), 'msg/s', { better: 'higher', machine: machine(name) });
  for (const [name, p, cpuName] of phases)
    if (p)
      figure(`${durability}: ${cpuName ?? name} server CPU s per 100k msgs`, cpuPer100k(p), 's', { better: 'lower' });
}

/** Ack-and-next against RabbitMQ's batched acks in both of its states: right after a burst, and after an idle pause. */
function ackAndNextRatios(durability: Durability, version: string, row: Row): void {
  const titles = ROW_TITLES[durability];
  figure(
    `${durability}: consume (ack-and-next) Ferrum/RabbitMQ`,
    rate(row.consumeAckNext.ferrum) / rate(row.consumeAckNext.rabbit),
    'x',
    {
      better: 'higher',
      target: 1.5,
      reference: `RabbitMQ ${version} in alternating rounds of the same phase (${titles.rabbit}, batched acks)`,
    },
  );
  figure(
    `${durability}: consume after an idle pause (ack-and-next) Ferrum/RabbitMQ`,
    rate(row.rested.ferrumAckNext) / rate(row.rested.rabbit),
    'x',
    {
      better: 'higher',
      target: 1.5,
      reference: `RabbitMQ ${version} draining the same backlog after ${REST_SECONDS} s idle (${titles.rabbit}, batched acks), its median drain of ${2 * REST_DRAINS}`,
    },
  );
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
