// Where the CPU of a run goes, by process group, read from /proc around it: the server, its
// Redis, the Docker engine (dockerd, containerd and the shims, which relay container output) and
// the function processes in given containers. The engine's groups are the whole machine's: other
// containers' work counts in them too.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { cpuSecondsOfAll, findProcesses, systemSecondsOfAll } from './proc-cpu.js';

export type CpuGroups = Record<string, () => number[]>;

function parentOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** `pid` and every process below it. */
export function treeOf(pid: number): number[] {
  const all = findProcesses('');
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const other of all) {
      if (!tree.has(other) && tree.has(parentOf(other))) {
        tree.add(other);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** `docker inspect` of containers by id; those gone since they were listed (other tests' containers) are left out. */
function inspectRows(ids: string[]): string {
  const args = ['inspect', '-f', '{{.State.Pid}} {{range .Mounts}}{{.Source}} {{end}}', ...ids];
  try {
    return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // It fails when any one is gone, yet prints the others.
    return String((error as { stdout?: string }).stdout ?? '');
  }
}

/** The main processes of the running containers whose bind mounts come from under `hostDir`, with their children. */
export function containerProcessesUnder(hostDir: string): number[] {
  const ids = execFileSync('docker', ['ps', '-q'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const rows = inspectRows(ids);
  const pids = rows
    .split('\n')
    .map((row) => row.split(' '))
    .filter(([pid, ...sources]) => Number(pid) > 0 && sources.some((source) => source.startsWith(hostDir)))
    .map(([pid]) => Number(pid));
  return pids.flatMap(treeOf);
}

/** The engine's processes: dockerd, and containerd with its shims. */
export function engineGroups(): CpuGroups {
  return {
    dockerd: () => findProcesses('dockerd'),
    'containerd + shims': () => findProcesses('containerd'),
  };
}

/** How often a process has been switched out so far: it slept (voluntary, e.g. an idle event loop) or was preempted. */
export function contextSwitches(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)].reduce(
      (sum, [, n]) => sum + Number(n),
      0,
    );
  } catch {
    return 0;
  }
}

/** One group's CPU per request: in all, and the part of it spent in the kernel. */
export interface GroupCpu {
  us: number;
  kernelUs: number;
}

/** Samples each group's CPU now; the returned function gives each group's µs per request since. */
export function cpuSplit(groups: CpuGroups): (requests: number) => Record<string, GroupCpu> {
  const members = Object.fromEntries(Object.entries(groups).map(([name, find]) => [name, find()]));
  const sample = (pids: number[]) => ({ all: cpuSecondsOfAll(pids), kernel: systemSecondsOfAll(pids) });
  const before = Object.fromEntries(Object.entries(members).map(([name, pids]) => [name, sample(pids)]));
  return (requests) =>
    Object.fromEntries(
      Object.entries(members).map(([name, pids]) => {
        const now = sample(pids);
        const perRequest = (seconds: number) => (seconds * 1_000_000) / Math.max(1, requests);
        return [
          name,
          { us: perRequest(now.all - before[name]!.all), kernelUs: perRequest(now.kernel - before[name]!.kernel) },
        ];
      }),
    );
}
