// How fast this machine is, measured at the start of a bench run, for the report's header: the
// rates the benches' floors and references are made of. A throwaway redis-server answering
// redis-benchmark's PING and SET (Redis alone, from a C client), and a bare node:http server
// answering "hello" to wrk (Node's HTTP stack alone). Every bench target is a ratio to a figure of
// its own run; these say what the machine gave those ratios to work with.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';

const HELLO_SERVER = `
const server = require('node:http').createServer((request, response) => response.end('hello'));
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(command, args, timeoutMs) {
  return new Promise((resolve, reject) =>
    execFile(command, args, { timeout: timeoutMs, encoding: 'utf8' }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
}

/** Starts `command` and resolves with it once its stdout matched `ready` (with the match). */
function startUntil(command, args, ready) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not start`));
    }, 10_000);
    child.once('error', reject);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, match });
    });
  });
}

/** redis-benchmark's PING and SET per second on a private redis-server (50 clients, no pipelining). */
async function redisRates(requests) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-speed-'));
  const redis = await startUntil(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    /Ready to accept connections/,
  );
  try {
    const args = ['-h', '127.0.0.1', '-p', String(port), '-c', '50', '-n', String(requests), '-t', 'ping,set', '--csv'];
    const csv = await run('redis-benchmark', args, 60_000);
    const rate = (test) => Number(new RegExp(`^"${test}","([\\d.]+)"`, 'm').exec(csv)?.[1]);
    return { redis_ping_per_s: rate('PING_MBULK') || rate('PING_BULK'), redis_set_per_s: rate('SET') };
  } finally {
    redis.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** wrk's requests per second against a bare node:http "hello" server in a process of its own (16 connections). */
async function nodeHttpRate(seconds) {
  const server = await startUntil(process.execPath, ['-e', HELLO_SERVER], /^(\d+)\n/);
  try {
    const url = `http://127.0.0.1:${server.match[1]}/`;
    const stdout = await run('wrk', ['-t1', '-c16', `-d${seconds}s`, url], (seconds + 30) * 1000);
    return { node_http_hello_per_s: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]) };
  } finally {
    server.child.kill('SIGKILL');
  }
}

/** The machine's speed; a part that cannot run (no redis-benchmark, no wrk) is left out with the reason. */
export async function machineSpeed(smoke) {
  const speed = {};
  for (const [name, measure] of [
    ['redis', () => redisRates(smoke ? 5_000 : 100_000)],
    ['node:http', () => nodeHttpRate(smoke ? 1 : 3)],
  ]) {
    try {
      Object.assign(speed, await measure());
    } catch (error) {
      speed[`${name} unmeasured`] = error.message.split('\n')[0];
    }
  }
  return speed;
}

/** The header's words for it. */
export function describeSpeed(speed, formatValue) {
  const rate = (key) => (typeof speed[key] === 'number' && speed[key] > 0 ? `${formatValue(speed[key])}/s` : 'n/a');
  const missing = Object.entries(speed)
    .filter(([key]) => key.endsWith('unmeasured'))
    .map(([key, why]) => `; ${key}: ${why}`);
  return (
    `Redis PING ${rate('redis_ping_per_s')} and SET ${rate('redis_set_per_s')} (redis-benchmark, 50 clients, a private redis-server), ` +
    `bare node:http hello ${rate('node_http_hello_per_s')} (wrk, 16 connections)${missing.join('')}`
  );
}
