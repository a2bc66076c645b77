// An attacker of the isolation benchmark in a process of its own (bench/isolation.ts run with
// the attack's role as its argument), so its load does not share the victim's event loop.
import { spawn, type ChildProcess } from 'node:child_process';

export interface Attack<Outcome> {
  /** Resolves once the attack began. */
  started: Promise<void>;
  /** What the attacker reports once it is over. */
  outcome: Promise<Outcome>;
  stop(): void;
}

/** Starts `role` of bench/isolation.ts with `payload` (JSON), as its attacker. */
export function startAttacker<Outcome>(role: string, payload: unknown): Attack<Outcome> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/isolation.ts', role], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_ATTACK: JSON.stringify(payload) },
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the ${role} attacker exited (${code}) before it was done`))),
  );
  const messages: unknown[] = [];
  const next = () =>
    Promise.race([
      new Promise<unknown>((resolve) => {
        if (messages.length > 0) resolve(messages.shift());
        else child.once('message', () => resolve(messages.shift()));
      }),
      exited,
    ]);
  child.on('message', (message) => messages.push(message));
  const started = next().then(() => undefined);
  const outcome = started.then(() => next() as Promise<Outcome>);
  outcome.catch(() => {});
  return { started, outcome, stop: () => child.kill('SIGTERM') };
}

/** The attacker's side: runs `attack` on the payload, tells the parent when it began and what it did. */
export async function serveAttack<Payload>(attack: (payload: Payload) => Promise<unknown>): Promise<void> {
  const payload = JSON.parse(process.env.BENCH_ATTACK!) as Payload;
  process.send!('started');
  process.send!(await attack(payload));
}
