// Redis's own round trip while a bench phase runs, from a client that is not Node (redis-cli
// --latency-history, one PING after another): whether a slow request in the phase could have
// waited on Redis itself rather than on a Node event loop.
import { spawn } from 'node:child_process';

/** Starts sampling; the returned stop() resolves to a one-line summary (worst and mean max per second). */
export function watchRedisLatency(redisUrl: string): () => Promise<string> {
  const child = spawn('redis-cli', ['-u', redisUrl, '--latency-history', '-i', '1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return () =>
    new Promise((resolve) => {
      child.once('close', () => {
        const seconds = [...output.matchAll(/min: ([\d.]+), max: ([\d.]+), avg: ([\d.]+)/g)].map((m) => ({
          max: Number(m[2]),
          avg: Number(m[3]),
        }));
        if (seconds.length === 0) return resolve('Redis latency (redis-cli): no sample');
        const worst = Math.max(...seconds.map((s) => s.max));
        const over2 = seconds.filter((s) => s.max > 2).length;
        const avg = seconds.reduce((sum, s) => sum + s.avg, 0) / seconds.length;
        resolve(
          `Redis latency (redis-cli PINGs, ${seconds.length} s): mean ${avg.toFixed(2)} ms, worst ${worst} ms; ${over2} s with a PING over 2 ms`,
        );
      });
      child.kill('SIGINT');
    });
}
