// The server side of bench/cache.ts: a controller with its own redis-server, in a process of
// its own so the load generator does not share its event loop. Prints one JSON line when ready.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer } from '../test/helpers/server.js';
import { startProfile, stopProfile } from './lib/phase-profile.js';

const server = await startTestServer({ LOG_LEVEL: 'error' });
process.stdout.write(
  `${JSON.stringify({ url: server.url, token: server.token, projectId: server.projectId, redisUrl: server.redisUrl, keyPrefix: server.config.keyPrefix })}\n`,
);

// With BENCH_PROFILE, each phase a bench ends with SIGUSR2 gets a CPU profile of its own (in
// /tmp/ferrum-bench-prof) and a line on how long the event loop was held (what every request waits behind).
const loopDelay = process.env.BENCH_PROFILE ? monitorEventLoopDelay({ resolution: 5 }) : null;
let phase = 0;
if (loopDelay) {
  loopDelay.enable();
  await startProfile();
}
process.on('SIGUSR2', () => void endPhase());

async function endPhase(): Promise<void> {
  if (!loopDelay) return;
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  const file = `/tmp/ferrum-bench-prof/phase-${process.pid}-${phase++}.cpuprofile`;
  await stopProfile(file);
  process.stderr.write(
    `  server event loop delay: p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms; profile ${file}\n`,
  );
  loopDelay.reset();
  await startProfile();
}

async function shutdown() {
  await server.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
