import { describe, expect, it } from 'vitest';
import { messageCount, reservationOf, timeoutOrQueues } from '../../src/mq/messages/reservation.js';

// The reservation rule both API versions share (src/mq/messages/reservation.ts).
const MIN = 30;

describe('the reservation rule', () => {
  it('defaults: one message, the queue timeout (0), no wait, no delete', () => {
    expect(reservationOf({}, MIN)).toEqual({ n: 1, timeout: 0, waitSeconds: 0, delete: false, deleteReserved: null });
  });

  it('serves n above 100 as 100 and a wait above 30 s as 30 s', () => {
    expect(reservationOf({ n: 500, wait: 60, delete: true }, MIN)).toMatchObject({
      n: 100,
      waitSeconds: 30,
      delete: true,
    });
    expect(messageCount(7)).toBe(7);
    expect(messageCount(undefined)).toBe(1);
  });

  it('reads a timeout of 0 as the queue timeout and keeps one within bounds', () => {
    expect(reservationOf({ timeout: 0 }, MIN).timeout).toBe(0);
    expect(reservationOf({ timeout: MIN }, MIN).timeout).toBe(MIN);
    expect(reservationOf({ timeout: 86_400 }, MIN).timeout).toBe(86_400);
  });

  it('refuses a timeout outside the bounds with a 400 naming the field', () => {
    for (const timeout of [MIN - 1, 86_401]) {
      expect(() => reservationOf({ timeout }, MIN)).toThrow(
        expect.objectContaining({ statusCode: 400, message: 'timeout must be between 30 and 86400' }),
      );
    }
    expect(() => timeoutOrQueues(5, 'messages[2].timeout', MIN)).toThrow(
      'messages[2].timeout must be between 30 and 86400',
    );
  });
});
