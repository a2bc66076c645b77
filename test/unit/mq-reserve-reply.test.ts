import { describe, expect, it } from 'vitest';
import { reservedMessagesJson } from '../../api/mq-v3/views.js';
import {
  bodyLiterals,
  reserveResult,
  reserveResultOfBytes,
  type ReserveReply,
} from '../../src/mq/messages/script-io.js';

// Bodies as reserve.lua's cjson writes them: '/' as \/, DEL as \u007f.
const bodies = ['a "b" \\ \u0001', '', 'x/y \\/ \\', '\u007f/ \\u007f', 'é ☃ 😀 \u2028', '\\'];
const cjsonList = `[${bodies
  .map((body) => JSON.stringify(body).replaceAll('/', '\\/').replaceAll('\u007f', '\\u007f'))
  .join(',')}]`;

describe("reserve.lua's reply", () => {
  it("splits cjson's list of bodies into literals written as JSON.stringify writes them", () => {
    expect(bodyLiterals(cjsonList, bodies.length)).toEqual(bodies.map((body) => JSON.stringify(body)));
  });

  it("answers version 3's messages JSON text byte for byte, and the parsed messages with their timeouts", () => {
    const headers = JSON.stringify(['{"X-A":"é \\"q\\""}', '', '', '', '', '']);
    const ids = ['11', '12', '13', '14', '15', '16'];
    const rids = ids.map((_, i) => `abc0${i}`);
    const reply: ReserveReply = [
      1,
      2,
      -1,
      30,
      '[]',
      ids.join(','),
      rids.join(','),
      '2,1,1,1,1,3',
      cjsonList,
      headers,
      '30,45,30,30,30,30',
    ];
    const { result, alerts } = reserveResult(reply);
    expect(alerts).toBe('[]');
    expect(result).toMatchObject({ count: 6, movedToDeadLetter: 1, expired: 2, nextDueMs: -1, timeout: 30 });
    const counts = [2, 1, 1, 1, 1, 3];
    const expected = ids.map((id, i) => ({
      id,
      body: bodies[i],
      reserved_count: counts[i],
      reservation_id: rids[i],
      ...(i === 0 ? { push_headers: { 'X-A': 'é "q"' } } : {}),
    }));
    expect(reservedMessagesJson(result.jsonPieces)).toBe(JSON.stringify(expected));
    expect(result.messages[0]).toEqual({
      id: '11',
      body: bodies[0],
      reservedCount: 2,
      reservationId: 'abc00',
      pushHeaders: { 'X-A': 'é "q"' },
      hopsLeft: 10,
      timeout: 30,
    });
    expect(result.messages.map((message) => [message.body, message.timeout, message.pushHeaders])).toEqual(
      bodies.map((body, i) => [body, i === 1 ? 45 : 30, i === 0 ? { 'X-A': 'é "q"' } : undefined]),
    );
    // Read once: the same list on every access.
    expect(result.messages).toBe(result.messages);
  });

  it("without timeouts of their own, each message's timeout is the one the reply names", () => {
    const { result } = reserveResult([0, 0, -1, 45, '[]', '1,2', 'r00,r01', '1,1', '["a","b"]', '', '']);
    expect(result.messages.map((message) => message.timeout)).toEqual([45, 45]);
    expect(reservedMessagesJson(result.jsonPieces)).toBe(
      '[{"id":"1","body":"a","reserved_count":1,"reservation_id":"r00"},{"id":"2","body":"b","reserved_count":1,"reservation_id":"r01"}]',
    );
  });

  it("with 'bytes' bodies (push delivery): each body a view of the bytes sent, split at the byte lengths given", () => {
    const text = (value: string) => Buffer.from(value);
    const ids = bodies.map((_, i) => String(21 + i));
    const { result, alerts } = reserveResultOfBytes([
      0,
      0,
      -1,
      30,
      text('[]'),
      text(ids.join(',')),
      text(ids.map((_, i) => `r0${i}`).join(',')),
      text(ids.map(() => '1').join(',')),
      Buffer.concat(bodies.map(text)),
      text(''),
      text(''),
      text(''),
      text(bodies.map((body) => Buffer.byteLength(body)).join(',')),
    ]);
    expect(alerts).toBe('[]');
    expect(result).toMatchObject({ count: bodies.length, timeout: 30, nextDueMs: -1 });
    expect(result.messages.map((message) => message.bytes)).toEqual(bodies.map(text));
    expect(result.messages.map((message) => message.body)).toEqual(bodies);
    expect(result.messages[4]).toMatchObject({ id: '25', reservationId: 'r04', reservedCount: 1, timeout: 30 });
    expect(result.jsonPieces.bodies).toEqual(bodies.map((body) => JSON.stringify(body)));
  });

  it('an empty reserve: no messages, the next due time', () => {
    const { result } = reserveResult([0, 0, 1_700_000_000_000, 60, '[]', '', '', '', '[]', '', '']);
    expect(result.count).toBe(0);
    expect(reservedMessagesJson(result.jsonPieces)).toBe('[]');
    expect(result.messages).toEqual([]);
    expect(result.nextDueMs).toBe(1_700_000_000_000);
  });
});
