// Redis's own round trip while a bench phase runs, from a client that is not Node (redis-cli
// --latency-history, one PING every 10 ms): whether a slow request in the phase could have
// waited on Redis itself rather than on a Node event loop.
import { spawn } from 'node:child_process';

/** Starts sampling; the returned stop() resolves to a one-line summary. */
export function watchRedisLatency(redisUrl: string): () => Promise<string> {
  // Line-buffered: without a terminal redis-cli prints "min max avg count" after each PING,
  // the figures of the current one-second interval so far.
  // The password goes by REDISCLI_AUTH: redis-cli's -u sends a URL's empty user name as one.
  const { hostname, port, password } = new URL(redisUrl);
  const cli = ['redis-cli', '-h', hostname, '-p', port || '6379', '--latency-history', '-i', '1'];
  const child = spawn('stdbuf', ['-oL', ...cli], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, REDISCLI_AUTH: decodeURIComponent(password) },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return async () => {
    child.kill('SIGINT');
    await closed;
    return summary(output);
  };
}

function summary(output: string): string {
  const samples = [...output.matchAll(/^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/gm)].map((m) => ({
    max: Number(m[2]),
    avg: Number(m[3]),
    count: Number(m[4]),
  }));
  if (samples.length === 0) return 'Redis latency (redis-cli): no sample';
  // Each interval's last line holds its figures: the count starts again at 1 in the next one.
  const intervals = samples.filter((sample, i) => i === samples.length - 1 || samples[i + 1]!.count <= sample.count);
  const worst = Math.max(...intervals.map((s) => s.max));
  const over2 = intervals.filter((s) => s.max > 2).length;
  const pings = intervals.reduce((sum, s) => sum + s.count, 0);
  const mean = intervals.reduce((sum, s) => sum + s.avg * s.count, 0) / pings;
  return `Redis latency (redis-cli, ${pings} PINGs over ${intervals.length} s): mean ${mean.toFixed(2)} ms, worst ${worst} ms; ${over2} s with a PING over 2 ms`;
}
