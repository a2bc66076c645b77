// How quickly the command line answers: `ferrum --help`, and one `ferrum mq list` against a running
// test server, beside `node -e 0` (the floor any Node program pays), as medians and as ratios to it;
// then `npx ferrum --help` beside `npx` of a bin that does nothing (npm's own start, the floor npx
// pays on this machine). Times the built CLI (dist/bin/ferrum.js, what
// `npx ferrum` runs), building it first when it is missing or older than cli/ and bin/.
// The targets are ratios: to `node -e 0`'s median, and to npx's own floor, in the same run.
// Run with `npm run bench:cli`; BENCH_CLI_RUNS sets the runs of each command (default 20).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../test/helpers/server.js';
import { figure, sized } from './lib/report.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENTRY = path.join(ROOT, 'dist/bin/ferrum.js');
const RUNS = sized('BENCH_CLI_RUNS', 20, 3);
function newestSource(dir: string): number {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .reduce((newest, entry) => Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0);
}

function ensureBuilt(): void {
  const builtAt = fs.existsSync(ENTRY) ? fs.statSync(ENTRY).mtimeMs : 0;
  if (builtAt > Math.max(newestSource(path.join(ROOT, 'cli')), newestSource(path.join(ROOT, 'bin')))) return;
  console.log('building dist/ (tsc -p tsconfig.build.json)…');
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** Milliseconds of one run of `command args`, which must succeed (spawned, so the in-process server keeps answering). */
function timeOnce(command: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env: { ...process.env, HOME: cwd }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${command} ${args.join(' ')} failed: ${stderr}`));
    });
  });
}

const NOOP_BIN = 'ferrum-bench-noop';

/** A project whose node_modules/.bin holds one bin that does nothing: what `npx` costs by itself. */
function npxFloorProject(parent: string): string {
  const dir = path.join(parent, 'npx-floor');
  const bin = path.join(dir, 'node_modules/.bin', NOOP_BIN);
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'npx-floor', private: true }));
  fs.writeFileSync(bin, '#!/usr/bin/env node\n', { mode: 0o755 });
  return dir;
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** Medians of each command, their runs interleaved so a busy moment weighs on all alike. */
async function medians(
  commands: Record<string, [string, string[]]>,
  cwd: string,
  cwdOf: Record<string, string> = {},
): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i < RUNS; i++)
    for (const [name, [command, args]] of Object.entries(commands))
      samples[name]!.push(await timeOnce(command, args, cwdOf[name] ?? cwd));
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

async function main(): Promise<void> {
  ensureBuilt();
  const server = await startTestServer();
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-cli-'));
  const url = new URL(server.url);
  const ironJson = { token: server.token, project_id: server.projectId, host: url.hostname, port: Number(url.port) };
  fs.writeFileSync(path.join(cwd, 'iron.json'), JSON.stringify(ironJson));
  try {
    const node = process.execPath;
    const times = await medians(
      {
        'node -e 0': [node, ['-e', '0']],
        'ferrum --help': [node, [ENTRY, '--help']],
        'ferrum mq list': [node, [ENTRY, 'mq', 'list']],
      },
      cwd,
    );
    const floor = times['node -e 0']!;
    figure('node -e 0, median', floor, 'ms', { better: 'lower', machine: true });
    // --help loads the command definitions only; mq list adds its command module, a request and the answer.
    for (const [name, target] of [
      ['ferrum --help', 3],
      ['ferrum mq list', 4],
    ] as const) {
      figure(`${name}, median`, times[name]!, 'ms', { better: 'lower' });
      figure(`${name} / node -e 0`, times[name]! / floor, 'x', {
        better: 'lower',
        target,
        reference: `node -e 0's median, ${floor.toFixed(0)} ms, same run`,
      });
    }
    const npxFloorDir = npxFloorProject(cwd);
    const npx = await medians(
      {
        'npx ferrum --help': ['npx', ['--no-install', 'ferrum', '--help']],
        'npx (a bin that does nothing)': ['npx', ['--no-install', NOOP_BIN]],
      },
      ROOT,
      { 'npx (a bin that does nothing)': npxFloorDir },
    );
    const npxFloor = npx['npx (a bin that does nothing)']!;
    figure('npx floor (npx of a local bin that does nothing), median', npxFloor, 'ms', {
      better: 'lower',
      machine: true,
    });
    figure('npx ferrum --help, median', npx['npx ferrum --help']!, 'ms', { better: 'lower' });
    // npx's own start is most of it; what ferrum adds on top is its own start beyond node's.
    figure('npx ferrum --help / npx floor', npx['npx ferrum --help']! / npxFloor, 'x', {
      better: 'lower',
      target: 1.5,
      reference: 'npx floor',
    });
  } finally {
    await server.stop();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  console.log(
    `load average: ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
