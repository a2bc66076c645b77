// CPU the Docker engine spends, from /proc, by part: dockerd and containerd with the helper
// processes they reaped (dockerd's docker-untar copies, containerd's shim launches), and the
// per-container shims with the runc calls they reaped. The shims outlive their launch and are
// reaped by the init process, so they are sampled while they live (the last moments of each
// are missed: a floor), and only those started during the measure count. dockerd and containerd
// are the whole machine's engine: other containers' work counts in them too.
import fs from 'node:fs';
import { cpuSeconds, findProcesses } from './proc-cpu.js';

export interface EngineCpuSeconds {
  dockerd: number;
  containerd: number;
  shims: number;
}

/** The process named in `pidFile`, else those whose command line holds `command`. */
function pidFrom(pidFile: string, command: string): number[] {
  try {
    return [Number(fs.readFileSync(pidFile, 'utf8').trim())];
  } catch {
    return findProcesses(command);
  }
}

/** The running shims: children of the init process (cheap to list), else found by command line. */
function shimPids(): number[] {
  let children: string;
  try {
    children = fs.readFileSync('/proc/1/task/1/children', 'utf8');
  } catch {
    return findProcesses('containerd-shim');
  }
  return children
    .split(' ')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('containerd-shim');
      } catch {
        return false;
      }
    });
}

function sum(pids: number[]): number {
  return pids.reduce((total, pid) => total + cpuSeconds(pid, true), 0);
}

/** Measures the engine's CPU from start() to stop(), sampling the shims every `sampleMs`. */
export class EngineCpu {
  private readonly dockerd = pidFrom('/var/run/docker.pid', 'dockerd');
  private readonly containerd = pidFrom('/var/run/docker/containerd/containerd.pid', 'containerd --config');
  private base = { dockerd: 0, containerd: 0 };
  /** Per shim: its CPU when first seen (0 if it started since start()), the latest seen, and whether it started since. */
  private readonly shims = new Map<number, { first: number; last: number; fresh: boolean }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly sampleMs = 100) {}

  start(): void {
    this.base = { dockerd: sum(this.dockerd), containerd: sum(this.containerd) };
    this.shims.clear();
    for (const pid of shimPids()) {
      const cpu = cpuSeconds(pid, true);
      this.shims.set(pid, { first: cpu, last: cpu, fresh: false });
    }
    this.timer = setInterval(() => this.sample(), this.sampleMs);
  }

  stop(): EngineCpuSeconds {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
    let shims = 0;
    // Only shims started meanwhile: the long-lived containers of others on the machine are left out.
    for (const { first, last, fresh } of this.shims.values()) if (fresh) shims += last - first;
    return {
      dockerd: sum(this.dockerd) - this.base.dockerd,
      containerd: sum(this.containerd) - this.base.containerd,
      shims,
    };
  }

  private sample(): void {
    for (const pid of shimPids()) {
      const cpu = cpuSeconds(pid, true);
      const seen = this.shims.get(pid);
      if (seen) seen.last = Math.max(seen.last, cpu);
      else this.shims.set(pid, { first: 0, last: cpu, fresh: true });
    }
  }
}
