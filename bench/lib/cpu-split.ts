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

/** The main process ids of containers by id; those gone since they were listed (other tests' containers) are left out. */
function mainProcesses(ids: string[]): number[] {
  const args = ['inspect', '-f', '{{.State.Pid}}', ...ids];
  let rows: string;
  try {
    rows = execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // It fails when any one is gone, yet prints the others.
    rows = String((error as { stdout?: string }).stdout ?? '');
  }
  return rows
    .split('\n')
    .map(Number)
    .filter((pid) => pid > 0);
}

/** The processes of the running containers labelled `label` (`name=value`), with their children. */
export function containerProcessesLabelled(label: string): number[] {
  const ids = execFileSync('docker', ['ps', '-q', '--filter', `label=${label}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  return ids.length === 0 ? [] : mainProcesses(ids).flatMap(treeOf);
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
