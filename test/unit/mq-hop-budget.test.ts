import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/mq/limits.js';
import {
  HOP_HEADER,
  hopHeaders,
  hopsLeftOf,
  readHeaders,
  visibleHeadersText,
} from '../../src/mq/messages/hop-budget.js';
import { checkPushHeaders } from '../../src/mq/messages/push-headers.js';
import { errorQueueMessage } from '../../src/mq/push/error-queue.js';
import type { QueueInfo } from '../../src/mq/types.js';

describe('the hop budget of a message', () => {
  it('is the whole budget for a client’s message, the stored count for one Ferrum produced, clamped', () => {
    expect(hopsLeftOf(undefined)).toBe(LIMITS.hopBudget);
    expect(hopsLeftOf({ other: 'x' })).toBe(LIMITS.hopBudget);
    expect(hopsLeftOf(hopHeaders(3))).toBe(3);
    expect(hopsLeftOf({ [HOP_HEADER]: '-4' })).toBe(0);
    expect(hopsLeftOf({ [HOP_HEADER]: '9999' })).toBe(LIMITS.hopBudget);
    expect(hopsLeftOf({ [HOP_HEADER]: 'many' })).toBe(0);
  });

  it('is left out of what tenants see, the other push headers kept', () => {
    expect(readHeaders(JSON.stringify(hopHeaders(2)))).toEqual({ hopsLeft: 2 });
    expect(readHeaders(JSON.stringify({ a: 'b', ...hopHeaders(1) }))).toEqual({ pushHeaders: { a: 'b' }, hopsLeft: 1 });
    expect(readHeaders('')).toEqual({ hopsLeft: LIMITS.hopBudget });
    expect(visibleHeadersText(JSON.stringify(hopHeaders(2)))).toBe('');
    expect(visibleHeadersText('{"a":"b"}')).toBe('{"a":"b"}');
  });

  it('cannot be set by a tenant: the header name is reserved (400)', () => {
    expect(() => checkPushHeaders({ 'Ferrum-Hops-Left': '10' }, 'push_headers')).toThrow(/reserved/);
  });
});

describe('a push error report', () => {
  const queue = { name: 'q', projectId: 'p' } as QueueInfo;
  const failed = new Map([
    ['s', { status: 'error', url: 'ironmq:///x', status_code: 413, error: 'full', tries: 1, retries_remaining: 0 }],
  ]) as Parameters<typeof errorQueueMessage>[2];

  it('embeds the body whole up to the limit', () => {
    const report = JSON.parse(errorQueueMessage(queue, { id: '1', body: 'short', reservedCount: 1 }, failed)!);
    expect(report.body).toBe('short');
    expect(report.body_truncated).toBeUndefined();
  });

  it('cuts a longer body on a character boundary, and says so', () => {
    const body = 'é'.repeat(LIMITS.maxErrorReportBodyBytes);
    const report = JSON.parse(errorQueueMessage(queue, { id: '1', body, reservedCount: 1 }, failed)!);
    expect(report.body_truncated).toBe(true);
    expect(report.body).toBe('é'.repeat(LIMITS.maxErrorReportBodyBytes / 2));
    const odd = 'a' + body;
    const cut = JSON.parse(errorQueueMessage(queue, { id: '1', body: odd, reservedCount: 1 }, failed)!).body;
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(LIMITS.maxErrorReportBodyBytes);
    expect(cut.endsWith('é')).toBe(true);
  });
});
