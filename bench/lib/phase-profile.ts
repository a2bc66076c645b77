// A CPU profile of one phase of a benchmark's server child, not of its whole life: the parent asks
// the child (started by serveInChild) to start V8's profiler before the phase and to write the
// profile when it ends, so that the profile holds that phase's requests only.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

export interface ProfileMessage {
  profile: 'start' | 'stop';
  /** Where the stopped profile is written (.cpuprofile). */
  file?: string;
}

export function isProfileMessage(message: unknown): message is ProfileMessage {
  return typeof message === 'object' && message !== null && 'profile' in message;
}

let session: Session | null = null;
/** µs between samples (BENCH_PROFILE_INTERVAL_US; V8's --cpu-prof default 1000): finer ones cost the server more. */
const INTERVAL_US = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 1000);

function post(method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session!.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

/** Starts V8's profiler in this process. */
export async function startProfile(): Promise<void> {
  session ??= new Session();
  session.connect();
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  await post('Profiler.start');
}

/** Stops the profiler started by startProfile and writes what it saw to `file` (.cpuprofile). */
export async function stopProfile(file: string): Promise<void> {
  const { profile } = (await post('Profiler.stop')) as { profile: unknown };
  session!.disconnect();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(profile));
}

/** The child's side: starts the profiler, or stops it and writes the profile; answers `{ profiled }`. */
export async function answerProfileMessage(message: ProfileMessage): Promise<void> {
  if (message.profile === 'start') await startProfile();
  else await stopProfile(message.file!);
  process.send!({ profiled: message.profile });
}

function ask(child: ChildProcess, message: ProfileMessage): Promise<void> {
  return new Promise((resolve) => {
    const answered = (answer: unknown) => {
      if (typeof answer !== 'object' || answer === null || !('profiled' in answer)) return;
      child.off('message', answered);
      resolve();
    };
    child.on('message', answered);
    child.send(message);
  });
}

/** The parent's side: `phase` run with the child's CPU profiled into `file`. */
export async function profiled<T>(child: ChildProcess, file: string, phase: () => Promise<T>): Promise<T> {
  await ask(child, { profile: 'start' });
  try {
    return await phase();
  } finally {
    await ask(child, { profile: 'stop', file });
  }
}
