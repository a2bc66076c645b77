import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freeClusterNodePort } from './cluster-ports.js';
import { eventually } from './eventually.js';
import { expectOwnRedis, expectStillRunning, PortTaken, retryOnPortTaken } from './port-taken.js';

const run = promisify(execFile);

/** A real Redis Cluster of three masters (no replicas), all redis-server processes on loopback. */
export interface TestRedisCluster {
  /** The seed nodes, comma-separated host:port, as REDIS_URL takes them in cluster mode. */
  seeds: string;
  ports: number[];
  /** How long this cluster took to start and form here, in ms: what bounds waiting for its restart. */
  startedInMs: number;
  /** Opens a plain connection to one master (e.g. to count its keys). */
  node(port: number): Redis;
  /** Kills every node (SIGKILL): the whole cluster is gone. */
  killAll(): Promise<void>;
  /** Starts the killed nodes again on their ports and configuration (their data is gone). */
  restartAll(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts one; again on other ports when another process took one of them first. */
export function startTestRedisCluster(masters = 3): Promise<TestRedisCluster> {
  return retryOnPortTaken(() => startClusterOnce(masters));
}

async function startClusterOnce(masters: number): Promise<TestRedisCluster> {
  const started = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-cluster-'));
  const ports: number[] = [];
  while (ports.length < masters) {
    const port = await freeClusterNodePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const spawnNode = (port: number) =>
    spawn(
      'redis-server',
      [
        '--bind', '127.0.0.1',
        '--port', String(port),
        '--dir', dir,
        '--cluster-enabled', 'yes',
        '--cluster-config-file', `nodes-${port}.conf`,
        '--cluster-node-timeout', '5000',
        '--save', '',
        '--appendonly', 'no',
        '--dbfilename', `dump-${port}.rdb`,
      ], // prettier-ignore
      { stdio: 'ignore' },
    );
  let children: ChildProcess[] = ports.map(spawnNode);
  const opened: Redis[] = [];
  const node = (port: number) => {
    const client = new Redis(port, '127.0.0.1', { retryStrategy: () => 200, lazyConnect: false });
    client.on('error', () => undefined);
    opened.push(client);
    return client;
  };
  const stop = async () => {
    for (const client of opened) client.disconnect();
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const probes = ports.map(node);
    // A node answering that is not its child would be another process's (its port was taken).
    const answers = async () => {
      expectStillRunning(children, 'a cluster node');
      try {
        await Promise.all(probes.map((probe, i) => expectOwnRedis(probe, children[i]!)));
        return true;
      } catch (error) {
        if (error instanceof PortTaken) throw error;
        return false;
      }
    };
    await eventually(answers, 20_000, 'the nodes to answer');
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    await eventually(
      async () => {
        const infos = await Promise.all(probes.map((p) => p.call('CLUSTER', 'INFO') as Promise<string>));
        return infos.every((i) => i.includes('cluster_state:ok') && i.includes(`cluster_known_nodes:${masters}`));
      },
      30_000,
      'the cluster to form',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    seeds: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    startedInMs: performance.now() - started,
    node,
    async killAll() {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children.map(exited));
    },
    async restartAll() {
      children = ports.map(spawnNode);
    },
    stop,
  };
}
