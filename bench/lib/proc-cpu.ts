// CPU time of server processes from /proc, so a bench can charge each system with what its own
// processes spent (the load generator and the rest of the machine excluded).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), from field 3 on; null once it is gone. */
function statFields(pid: number): number[] | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}

/** CPU seconds a process has used so far in user space and in the kernel (system) on its behalf (0 once it is gone). */
export function cpuTimes(pid: number): { user: number; system: number } {
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15.
  if (!fields) return { user: 0, system: 0 };
  return { user: fields[11]! / clockTicks(), system: fields[12]! / clockTicks() };
}

/** User + system CPU seconds a process has used so far (0 once it is gone); with `children`, those of the children it waited for too. */
export function cpuSeconds(pid: number, children = false): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  // utime and stime are fields 14 and 15, cutime and cstime 16 and 17.
  const own = fields[11]! + fields[12]!;
  return (children ? own + fields[13]! + fields[14]! : own) / clockTicks();
}

/** Summed CPU seconds of several processes. */
export function cpuSecondsOfAll(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

/** User + system CPU seconds the threads of a process whose names match `name` have used so far. */
export function threadCpuSeconds(pid: number, name: RegExp): number {
  let ticks = 0;
  let threads: string[];
  try {
    threads = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const thread of threads) {
    try {
      if (!name.test(fs.readFileSync(`/proc/${pid}/task/${thread}/comm`, 'utf8').trim())) continue;
      const stat = fs.readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
      const fields = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      ticks += fields[11]! + fields[12]!;
    } catch {
      // gone meanwhile
    }
  }
  return ticks / clockTicks();
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
