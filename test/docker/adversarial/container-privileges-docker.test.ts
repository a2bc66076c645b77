import { describe, expect, it } from 'vitest';
import { FAST_WORKER_ENV, WorkerClient } from '../../helpers/worker.js';
import { createTenant, expectHealthy } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { useAttackerAndVictim, useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';
import { useRunner } from '../../helpers/worker-test-file.js';

// A tenant's task looks at what it may do: capabilities, privilege escalation, processes, open
// files, the network. Everything is at its least by default; a code package cannot ask for more.

const ENV = { ...FAST_WORKER_ENV, FERRUM_RUNNER_NOFILE: '512', FERRUM_RUNNER_PIDS_LIMIT: '64' };

const server = useHardenedServer(ENV);
useRunner(server, ENV);
const { worker, victimIntact } = useAttackerAndVictim(server, 'priv');

const PROBE = [
  'grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status',
  'echo "nofile=$(ulimit -n)"',
  'echo "uid=$(id -u)"',
  'echo "nets=$(ls /sys/class/net | tr "\\n" " ")"',
  'echo "pids=$(cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max)"',
  'echo "mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max)"',
  'mknod /tmp/dev c 1 3 2>/dev/null && echo mknod=allowed || echo mknod=refused',
  'chown 1:1 "$PAYLOAD_FILE" 2>/dev/null && echo chown=allowed || echo chown=refused',
].join('; ');

async function probe(runnerUnderTest: WorkerClient, extraUpload: Record<string, unknown> = {}): Promise<string> {
  await runnerUnderTest.upload({
    name: 'probe',
    image: 'ferrum-test/busybox',
    command: 'sh -c "$(cat $PAYLOAD_FILE)"',
    ...extraUpload,
  });
  const id = await runnerUnderTest.queue('probe', PROBE);
  const task = await runnerUnderTest.waitFor(id, ['complete', 'error'], 60_000);
  const log = await runnerUnderTest.log(id);
  expect(task.status, log).toBe('complete');
  return log;
}

describe('task containers by default', () => {
  it('have no capabilities, no new privileges, limits on pids, memory and open files, and no network', async () => {
    const log = await probe(worker);
    expect(log).toMatch(/CapEff:\s+0000000000000000/);
    expect(log).toMatch(/CapBnd:\s+0000000000000000/);
    expect(log).toMatch(/NoNewPrivs:\s+1/);
    expect(log).toContain('nofile=512');
    expect(log).toContain('pids=64');
    expect(log).toContain(`mem=${512 * 1024 * 1024}`);
    expect(log).toContain('nets=lo ');
    expect(log).toContain('mknod=refused');
    expect(log).toContain('chown=refused');
    // The image's own user (root in busybox) is kept: no user is forced on it.
    expect(log).toContain('uid=0');
    await expectHealthy(server);
    await victimIntact();
  });

  it('a code package cannot ask for the host network or privileges', async () => {
    const log = await probe(worker, { network: 'host', privileged: true, cap_add: ['SYS_ADMIN'] });
    expect(log).toContain('nets=lo ');
    expect(log).toMatch(/CapEff:\s+0000000000000000/);
  });
});

describe('the operator', () => {
  const capsEnv = { ...ENV, FERRUM_RUNNER_CAP_ADD: 'chown' };
  const capsServer = useHardenedServer(capsEnv);
  useRunner(capsServer, capsEnv);

  it(
    'gives back named capabilities with FERRUM_RUNNER_CAP_ADD',
    async () => {
      const tenant = await createTenant(capsServer, 'caps');
      const log = await probe(new WorkerClient(tenant.http, tenant.projectId));
      // CAP_CHOWN is bit 0.
      expect(log).toMatch(/CapEff:\s+0000000000000001/);
      expect(log).toContain('chown=allowed');
      expect(log).toContain('mknod=refused');
    },
    scaled(120_000),
  );
});
