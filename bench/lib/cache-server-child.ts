// Starts bench/cache-server.ts (a controller with its own redis-server), or another server script
// that prints the same JSON line, in a process of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';

export interface CacheServerInfo {
  url: string;
  token: string;
  projectId: string;
  redisUrl: string;
  keyPrefix: string;
}

/**
 * The server process and what it printed when ready. It prints one JSON line then; a log line
 * it writes before that (a JSON object without `url`) is passed on to stderr, not taken for it.
 */
export async function startCacheServer(
  script = 'bench/cache-server.ts',
): Promise<{ child: ChildProcess; info: CacheServerInfo }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const parsed = parseObject(line);
    if (typeof parsed?.url === 'string') {
      lines.close();
      return { child, info: parsed as unknown as CacheServerInfo };
    }
    process.stderr.write(`${line}\n`);
  }
  throw new Error('bench server exited before it was ready');
}

function parseObject(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
