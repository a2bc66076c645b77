import { describe, expect, it } from 'vitest';
import {
  mayManageCluster,
  mayManageRunnerTokens,
  maySeeCluster,
  mayUseCluster,
} from '../../src/worker/clusters/cluster-access.js';
import { defaultClusterView } from '../../src/worker/clusters/cluster-rules.js';
import type { Cluster } from '../../src/worker/clusters/cluster-types.js';
import { checkPayload, checkPayloads, taskSettings, TASK_BOUNDS } from '../../src/worker/tasks/task-admission.js';
import { uploadFrom } from '../../src/worker/codes/upload-rules.js';
import type { UploadData } from '../../src/worker/codes/upload-schema.js';
import { LIMITS, type Code } from '../../src/worker/types.js';

// The worker's domain rules, each one function in src/worker, checked without Redis or HTTP.

const cluster = (over: Partial<Cluster> = {}): Cluster => ({
  ...defaultClusterView(),
  id: 'c1',
  user_id: 'owner',
  ...over,
});
const owner = { userId: 'owner', admin: false };
const sharedUser = { userId: 'friend', admin: false };
const stranger = { userId: 'stranger', admin: false };
const admin = { userId: 'root', admin: true };

describe('cluster access', () => {
  const shared = cluster({ shared_to: ['friend'] });

  it('lets the owner and users it is shared to send tasks, no one else', () => {
    expect(mayUseCluster(shared, 'owner')).toBe(true);
    expect(mayUseCluster(shared, 'friend')).toBe(true);
    expect(mayUseCluster(shared, 'stranger')).toBe(false);
  });

  it('shows a cluster to those who may use it and to admins', () => {
    expect(maySeeCluster(sharedUser, shared)).toBe(true);
    expect(maySeeCluster(admin, shared)).toBe(true);
    expect(maySeeCluster(stranger, shared)).toBe(false);
  });

  it('lets only the owner and admins manage a cluster, not users it is shared to', () => {
    expect(mayManageCluster(owner, shared)).toBe(true);
    expect(mayManageCluster(admin, shared)).toBe(true);
    expect(mayManageCluster(sharedUser, shared)).toBe(false);
  });

  it("leaves the default cluster's runner tokens to admins", () => {
    expect(mayManageRunnerTokens(admin, defaultClusterView())).toBe(true);
    expect(mayManageRunnerTokens(owner, defaultClusterView())).toBe(false);
    expect(mayManageRunnerTokens(owner, shared)).toBe(true);
    expect(mayManageRunnerTokens(sharedUser, shared)).toBe(false);
  });
});

describe('task admission', () => {
  const code = { priority: 1 } as Code;

  it('refuses a payload over the limit, naming the field', () => {
    expect(() => checkPayload('x'.repeat(LIMITS.payloadBytes))).not.toThrow();
    expect(() => checkPayload('x'.repeat(LIMITS.payloadBytes + 1))).toThrow(
      `payload must be at most ${LIMITS.payloadBytes} bytes`,
    );
    const big = 'x'.repeat(LIMITS.payloadBytes + 1);
    expect(() =>
      checkPayloads([
        { code_name: 'a', payload: '' },
        { code_name: 'a', payload: big },
      ]),
    ).toThrow('tasks[1].payload must be at most');
  });

  it("fills what a request leaves out: the code's priority, the longest timeout, no delay, the default cluster", () => {
    expect(taskSettings(code, { code_name: 'a', payload: '' })).toEqual({
      priority: 1,
      timeout: TASK_BOUNDS.timeout.maximum,
      delay: 0,
      cluster: 'default',
    });
    expect(
      taskSettings(code, { code_name: 'a', payload: '', priority: 2, timeout: 5, delay: 3, cluster: 'c1' }),
    ).toEqual({ priority: 2, timeout: 5, delay: 3, cluster: 'c1' });
  });
});

describe('code upload rules', () => {
  const stacks = {
    stacks: { 'node-20': 'node:20' },
    defaultStack: 'node-20',
    runtimes: { node: 'node-20' },
    shellFollowsScript: true,
  };
  const zip = Buffer.from('zip');

  it('gives a zip naming only a runtime its stack and a command from file_name', () => {
    const upload = uploadFrom({ name: 'hello', runtime: 'node', file_name: 'hello.js' }, zip, stacks);
    expect(upload.settings.stack).toBe('node-20');
    expect(upload.settings.command).toContain('hello.js');
  });

  it('refuses each kind of bad data part with a message naming the field', () => {
    // Types and ranges are the schema's (UPLOAD_DATA_SCHEMA, test/redis/worker/worker-codes.test.ts).
    const refusal = (data: UploadData, file?: Buffer) => {
      try {
        uploadFrom(data, file, stacks);
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal({ name: '', image: 'x' })).toBe('name is required');
    expect(refusal({ name: 'n' })).toBe('image is required');
    expect(refusal({ name: 'n', image: 'x', stack: 'node-20' })).toBe(
      'stack is not supported for custom images: give image or stack, not both',
    );
    expect(refusal({ name: 'n', runtime: 'cobol' }, zip)).toBe('runtime must be one of: node (got "cobol")');
    expect(refusal({ name: 'n', image: 'x', config: 'é'.repeat(40_000) })).toBe('config must be at most 65536 bytes');
    expect(refusal({ name: 'n', image: 'x', env_vars: { 'A-B': 'v' } })).toBe(
      'env_vars name "A-B" must be letters, digits and _',
    );
  });
});
