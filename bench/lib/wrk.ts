// wrk (a C load generator, `apt-get install -y wrk`) driving one kind of request, so that the
// load generator's own CPU never counts as the server's and a Node client doesn't share its cores.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuSecondsOfAll } from './proc-cpu.js';

export interface WrkRequest {
  method: string;
  body?: Buffer | string;
  headers: Record<string, string>;
  /** Lua run after the request settings: e.g. a `request()` function that varies each request. */
  lua?: string;
}

export interface LoadFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Server CPU (user + system) per request, in µs. */
  cpuUs: number;
}

function msOf(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) throw new Error(`unreadable wrk latency "${text}"`);
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

let scripts = 0;

/** Runs wrk with `connections` keep-alive connections against `url` for `seconds`; the server's CPU is read around it. */
export function wrk(
  url: string,
  /** `serverPid`: the server's process, or all of them (a primary and its HTTP workers). */
  options: { seconds: number; connections: number; serverPid: number | number[] },
  request: WrkRequest,
): Promise<LoadFigures> {
  const script = path.join(os.tmpdir(), `ferrum-bench-wrk-${process.pid}-${scripts++}.lua`);
  const lines = [`wrk.method = ${JSON.stringify(request.method)}`];
  if (request.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(request.body.toString())}`);
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  if (request.lua) lines.push(request.lua);
  fs.writeFileSync(script, `${lines.join('\n')}\n`);
  const threads = Math.min(2, options.connections);
  const args = [
    `-t${threads}`,
    `-c${options.connections}`,
    `-d${Math.max(1, Math.round(options.seconds))}s`,
    '--latency',
    '-s',
    script,
    url,
  ];
  const pids = [options.serverPid].flat();
  const cpuBefore = cpuSecondsOfAll(pids);
  return new Promise((resolve, reject) => {
    execFile('wrk', args, (error, stdout) => {
      const cpuUs = (cpuSecondsOfAll(pids) - cpuBefore) * 1_000_000;
      fs.rmSync(script, { force: true });
      if (error) return reject(new Error(`wrk failed (apt-get install -y wrk): ${error.message}`));
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
      const failed = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
      if (failed) return reject(new Error(`${url}: ${failed[1]} of ${requests} answers were not 2xx`));
      const p50 = /\s50%\s+(\S+)/.exec(stdout)?.[1];
      const p99 = /\s99%\s+(\S+)/.exec(stdout)?.[1];
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
      if (!p50 || !p99 || !requests) return reject(new Error(`unreadable wrk output:\n${stdout}`));
      resolve({ rps, p50Ms: msOf(p50), p99Ms: msOf(p99), requests, cpuUs: cpuUs / requests });
    });
  });
}
