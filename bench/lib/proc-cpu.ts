// CPU time of server processes from /proc, so a bench can charge each system with what its own
// processes spent (the load generator and the rest of the machine excluded).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** CPU seconds a process has used so far in user space and in the kernel (system) on its behalf (0 once it is gone). */
export function cpuTimes(pid: number): { user: number; system: number } {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { user: 0, system: 0 };
  }
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / clockTicks(), system: Number(fields[12]) / clockTicks() };
}

/** User + system CPU seconds a process has used so far (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** Summed CPU seconds of several processes. */
export function cpuSecondsOfAll(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

/** Summed system (kernel) CPU seconds of several processes. */
export function systemSecondsOfAll(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuTimes(pid).system, 0);
}

/** Ids of the running processes whose command line contains every one of `parts`. */
export function findProcesses(...parts: string[]): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (parts.every((part) => command.includes(part))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
