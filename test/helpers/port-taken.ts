import type { ChildProcess } from 'node:child_process';

/**
 * A server child that exited as it started: the port it was given, free a moment before, was
 * bound by another process in between (most likely a second copy of the suite on this machine).
 */
export class PortTaken extends Error {}

/** Throws PortTaken when any of `children` has already exited. */
export function expectStillRunning(children: ChildProcess[], what: string): void {
  const gone = children.find((child) => child.exitCode !== null || child.signalCode !== null);
  if (gone)
    throw new PortTaken(`${what} exited as it started (${gone.exitCode ?? gone.signalCode}): its port was taken`);
}

/** Calls `start` again, on new free ports, when it failed because a port was taken; at most `attempts` times. */
export async function retryOnPortTaken<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= attempts) throw error;
    }
  }
}

/** Throws PortTaken when the redis-server answering on `client` is not `child` (another process had the port). */
export async function expectOwnRedis(
  client: { info(section: 'server'): Promise<string> },
  child: ChildProcess,
): Promise<void> {
  const pid = /process_id:(\d+)/.exec(await client.info('server'))?.[1];
  if (pid !== String(child.pid))
    throw new PortTaken(`another redis-server (pid ${pid}) answers on the port given to ${child.pid}`);
}
