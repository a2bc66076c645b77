/**
 * Cold function benchmark: calls of a `default`-format echo route (one container per call)
 * through the real HTTP endpoint, beside bare `docker run --rm -i` runs of the same image with
 * the same stdin: latency p50/p99 and calls/s of each, sequential and with 4 callers, and the
 * ratio of the medians (target ≤ 1.2×). BENCH_CALLS (default 40) scales it.
 */
import { spawn } from 'node:child_process';
import { FunctionsClient } from '../test/helpers/functions.js';
import { startTestServer } from '../test/helpers/server.js';
import { FAST_WORKER_ENV, startRunner } from '../test/helpers/worker.js';
import { figure, sized, SMOKE } from './lib/report.js';

const CALLS = sized('BENCH_CALLS', 40, 2);
// The smoke run proves both paths work once; the 4-caller case adds time, not coverage.
const CALLERS = SMOKE ? [1] : [1, 4];
const IMAGE = 'ferrum-test/fn-echo';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function bareRun(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['run', '--rm', '-i', '--network', 'none', IMAGE], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`docker run exited with ${code}`))));
    child.stdin.end('hello');
  });
}

/** Runs `count` calls of `once` with `callers` in parallel; latencies in ms and calls/s. */
async function measure(count: number, callers: number, once: () => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next++ < count) {
        const begin = performance.now();
        await once();
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: count / seconds };
}

const format = (label: string, m: { p50: number; p99: number; perSecond: number }) =>
  `${label.padEnd(34)} p50 ${m.p50.toFixed(1).padStart(7)} ms  p99 ${m.p99.toFixed(1).padStart(7)} ms  ${m.perSecond.toFixed(1).padStart(6)} calls/s`;

async function main(): Promise<void> {
  const server = await startTestServer(FAST_WORKER_ENV);
  const runner = await startRunner(server, { FERRUM_FUNCTIONS_RUNNER_SLOTS: '4' });
  try {
    const fn = new FunctionsClient(server.http);
    await fn.route('bench', { path: '/echo', image: IMAGE });
    const call = async () => {
      const response = await fn.call('POST', 'bench/echo', 'hello');
      if (response.status !== 200) throw new Error(`call failed: ${response.status} ${response.text}`);
    };
    await call();
    await bareRun();
    for (const callers of CALLERS) {
      const cold = await measure(CALLS, callers, call);
      const bare = await measure(CALLS, callers, bareRun);
      console.log(format(`cold call, ${callers} caller(s)`, cold));
      console.log(format(`bare docker run -i, ${callers} caller(s)`, bare));
      console.log(`  ratio of medians: ${(cold.p50 / bare.p50).toFixed(2)}x (target <= 1.2x)`);
      figure(`cold call p50, ${callers} caller(s)`, cold.p50, 'ms', { better: 'lower' });
      figure(`cold call/bare docker run median, ${callers} caller(s)`, cold.p50 / bare.p50, 'x', {
        better: 'lower',
        target: 1.2,
        reference: 'bare docker run --rm -i of the same image with the same stdin',
      });
    }
  } finally {
    await runner.stop();
    await server.stop();
  }
}

await main();
