import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { eventually } from './eventually.js';
import { expectOwnRedis, expectStillRunning, PortTaken, retryOnPortTaken } from './port-taken.js';

/**
 * A master, one replica and one Sentinel watching them, all real redis-server processes on
 * loopback. Both servers have `min-replicas-to-write 1`, as docs/operations.md advises for Sentinel: the
 * old master refuses writes the moment the replica promoted in its place stops replicating
 * from it, so nothing more is acknowledged there and dropped when the Sentinel demotes it (the
 * new master takes writes once the old one follows it).
 */
export interface TestSentinel {
  sentinelAddress: string;
  masterName: string;
  /** The master's port now, as the Sentinel reports it. */
  masterPort(): Promise<number>;
  /** Forces a failover (SENTINEL FAILOVER) and resolves once the Sentinel names the new master. */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await eventually(
    () =>
      check().catch((error: unknown) => {
        if (error instanceof PortTaken) throw error;
        return false;
      }),
    timeoutMs,
    what,
  );
}

/** Starts them; again on other ports when another process took one of them first. */
export function startTestSentinel(masterName = 'ferrum-test'): Promise<TestSentinel> {
  return retryOnPortTaken(() => startSentinelOnce(masterName));
}

async function startSentinelOnce(masterName: string): Promise<TestSentinel> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-sentinel-'));
  const [masterPort, replicaPort, sentinelPort] = [
    await freeLoopbackPort(),
    await freeLoopbackPort(),
    await freeLoopbackPort(),
  ];
  const children: ChildProcess[] = [];
  const server = (port: number, ...extra: string[]) => {
    const child = spawn(
      'redis-server',
      [
        ...['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no'],
        ...['--min-replicas-to-write', '1', '--min-replicas-max-lag', '10'],
        ...extra,
      ],
      { stdio: 'ignore' },
    );
    children.push(child);
  };
  server(masterPort!, '--dbfilename', `m${masterPort}.rdb`);
  server(replicaPort!, '--dbfilename', `r${replicaPort}.rdb`, '--replicaof', '127.0.0.1', String(masterPort));
  const conf = path.join(dir, 'sentinel.conf');
  fs.writeFileSync(
    conf,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${masterName} 1000`,
      `sentinel failover-timeout ${masterName} 5000`,
      '',
    ].join('\n'),
  );
  children.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
  const sentinel = new Redis(sentinelPort!, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 200 });
  sentinel.on('error', () => undefined);
  const masterPortNow = async () =>
    Number(((await sentinel.call('SENTINEL', 'get-master-addr-by-name', masterName)) as string[])[1]);
  // The master takes writes once its replica has acknowledged it (min-replicas-to-write).
  const master = new Redis(masterPort!, '127.0.0.1');
  master.on('error', () => undefined);
  try {
    await until(
      async () => {
        expectStillRunning(children, 'a Sentinel test server');
        await expectOwnRedis(master, children[0]!);
        return (await master.info('replication')).includes('min_slaves_good_slaves:1');
      },
      30_000,
      'the replica to follow the master',
    );
  } catch (error) {
    sentinel.disconnect();
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    master.disconnect();
  }
  return {
    sentinelAddress: `127.0.0.1:${sentinelPort}`,
    masterName,
    masterPort: masterPortNow,
    async failover() {
      // The Sentinel learns of the replica from the master's INFO, every 10 s: only a failover needs it.
      await until(
        async () => ((await sentinel.call('SENTINEL', 'replicas', masterName)) as unknown[]).length === 1,
        30_000,
        'the Sentinel to see the replica',
      );
      const before = await masterPortNow();
      // A replica just seen is not yet "good" to the Sentinel (NOGOODSLAVE) until it has its INFO.
      await until(
        async () => {
          try {
            await sentinel.call('SENTINEL', 'FAILOVER', masterName);
            return true;
          } catch (error) {
            if (String(error).includes('NOGOODSLAVE')) return false;
            throw error;
          }
        },
        30_000,
        'the Sentinel to accept the failover',
      );
      await until(async () => (await masterPortNow()) !== before, 30_000, 'the failover');
    },
    async stop() {
      sentinel.disconnect();
      for (const child of children) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
