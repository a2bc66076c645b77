import { describe, expect, it } from 'vitest';
import { FailureGroup } from '../../src/core/failure-log.js';
import { QueueWorker, type QueueWorkerDeps } from '../../src/mq/push/queue-worker.js';
import type { QueueInfo, ReserveResult } from '../../src/mq/types.js';

/** A logger that keeps its lines. */
function fakeLog() {
  const lines: { level: 'info' | 'warn'; details: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    info: (details: object, message: string) => void lines.push({ level: 'info', details: { ...details }, message }),
    warn: (details: object, message: string) => void lines.push({ level: 'warn', details: { ...details }, message }),
  };
}

// eslint-disable-next-line no-restricted-syntax -- lets the log promises settle: a macrotask turn, not a wait on a time
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('FailureGroup', () => {
  it('logs one line when the first member fails and one when the last recovers, whatever the attempts', () => {
    const log = fakeLog();
    const group = new FailureGroup(log, 'push delivery', 1000, 30_000);
    const members = Array.from({ length: 10 }, (_, index) => group.member(`p/q${index}`));
    for (let attempt = 0; attempt < 5; attempt++) for (const member of members) member.failed(new Error('down'));
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      level: 'warn',
      message: 'push delivery failing; backing off',
      details: { activity: 'push delivery', member: 'p/q0' },
    });
    expect(group.failing).toBe(true);

    for (const member of members.slice(0, 9)) member.succeeded();
    expect(log.lines).toHaveLength(1);
    members[9]!.succeeded();
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]).toMatchObject({
      level: 'info',
      message: 'push delivery recovered',
      details: { activity: 'push delivery', failures: 50, members_failed: 10 },
    });
    expect(group.failing).toBe(false);
    // Healthy members succeeding log nothing.
    for (const member of members) member.succeeded();
    expect(log.lines).toHaveLength(2);
  });

  it('backs each member off on its own, exponentially up to the max', () => {
    const group = new FailureGroup(fakeLog(), 'push delivery', 1000, 5000);
    const a = group.member('a');
    const b = group.member('b');
    expect([a.failed('x'), a.failed('x'), a.failed('x'), a.failed('x')]).toEqual([1000, 2000, 4000, 5000]);
    expect(b.delayMs()).toBe(0);
    expect(b.failed('x')).toBe(1000);
    a.succeeded();
    expect(a.delayMs()).toBe(0);
    expect(b.delayMs()).toBe(1000);
  });

  it('ends the failing state when the last failing member is released, and ignores it afterwards', () => {
    const log = fakeLog();
    const group = new FailureGroup(log, 'push delivery');
    const gone = group.member('p/gone');
    gone.failed(new Error('down'));
    gone.release();
    expect(log.lines.map((line) => line.message)).toEqual([
      'push delivery failing; backing off',
      'push delivery recovered',
    ]);
    // A round still in flight after the release fails: no new episode, nothing stuck "failing".
    gone.failed(new Error('late'));
    expect(group.failing).toBe(false);
    expect(log.lines).toHaveLength(2);
  });
});

describe('QueueWorker with a failing store', () => {
  it('logs one line per state change for all the queues of a deliverer, not one per queue', async () => {
    const log = fakeLog();
    const group = new FailureGroup(log, 'push delivery', 1000, 30_000);
    let down = true;
    const queue = {
      projectId: 'p',
      name: 'q',
      type: 'multicast',
      messageTimeout: 60,
      push: { subscribers: [{ name: 's', url: 'http://s.invalid/' }] },
    } as unknown as QueueInfo;
    const fail = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    };
    const deps = (name: string): QueueWorkerDeps =>
      ({
        queues: { info: async () => (down ? fail() : { ...queue, name }) },
        messages: {
          reserve: async (): Promise<ReserveResult> =>
            down ? fail() : ({ messages: [], nextDueMs: -1 } as unknown as ReserveResult),
        },
        push: {},
        send: () => async () => {
          throw new Error('no delivery in this test');
        },
        log,
        maxInFlight: 4,
        requestTimeoutMs: 1000,
        health: group.member(`p/${name}`),
      }) as unknown as QueueWorkerDeps;
    const workers = Array.from(
      { length: 25 },
      (_, index) => new QueueWorker({ projectId: 'p', name: `q${index}` }, deps(`q${index}`)),
    );
    try {
      // Redis is down: every queue's attempts fail, over and over.
      for (let attempt = 0; attempt < 4; attempt++) {
        for (const worker of workers) worker.kick();
        await settle();
      }
      expect(log.lines.map((line) => `${line.level} ${line.message}`)).toEqual([
        'warn push delivery failing; backing off',
      ]);
      expect(log.lines[0]!.details.err).toBeInstanceOf(Error);

      // Redis is back: the queues recover one by one; one line once the last one has.
      down = false;
      for (const worker of workers) worker.kick();
      await settle();
      expect(log.lines.map((line) => `${line.level} ${line.message}`)).toEqual([
        'warn push delivery failing; backing off',
        'info push delivery recovered',
      ]);
      expect(log.lines[1]!.details).toMatchObject({ members_failed: 25, failures: 100 });
    } finally {
      for (const worker of workers) worker.halt();
    }
  });
});
