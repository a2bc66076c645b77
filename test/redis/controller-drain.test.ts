import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { getOnOwnConnection as get } from '../helpers/http.js';
import { uniqueQueue, useMqClient } from '../helpers/mq.js';
import { useTestServer } from '../helpers/test-file.js';
import { scaled } from '../helpers/pace.js';

const DRAIN_MS = 1500;

/** A POST whose client sends the first bytes of its body now and the rest on finish(). */
function slowPost(url: string, token: string, body: string) {
  const request = http.request(url, {
    method: 'POST',
    agent: false,
    headers: { Authorization: `OAuth ${token}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
  });
  const answered = new Promise<number>((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
  });
  request.write(body.slice(0, 10));
  return { answered, finish: () => request.end(body.slice(10)) };
}

describe('a stopping controller drains', () => {
  const server = useTestServer({ FERRUM_HTTP_DRAIN_MS: String(DRAIN_MS) });
  const mq = useMqClient(server);

  it('answers /ready 503 at once while still serving every request, then ends long-polls empty and closes', async () => {
    const queue = uniqueQueue('drain');
    await mq.createQueue(queue);
    expect(await get(`${server.url}/ready`)).toMatchObject({ status: 200, connection: 'keep-alive' });
    const longPoll = mq.http.post(mq.path(queue, '/reservations'), { n: 1, wait: 30 });
    await eventually(() => server.running.ctx.mq.hub.waiterCount === 1, 5000, 'the long-poll waiting');

    const drainStarted = Date.now();
    const drained = server.running.drain();
    expect(await get(`${server.url}/ready`)).toEqual({ status: 503, connection: 'close' });
    // The listener is open and requests are served, each answer closing its connection.
    expect(await get(`${server.url}/health`)).toEqual({ status: 200, connection: 'close' });
    expect(await mq.postBodies(queue, 'during the drain')).toHaveLength(1);
    // The long-poll was woken by that post: it got the message, not an error.
    expect((await longPoll).body.messages.map((message: { body: string }) => message.body)).toEqual([
      'during the drain',
    ]);
    const secondPoll = mq.http.post(mq.path(queue, '/reservations'), { n: 1, wait: 30 });
    await eventually(() => server.running.ctx.mq.hub.waiterCount === 1, 5000, 'the second long-poll waiting');

    await drained;
    expect(Date.now() - drainStarted).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    // An upload still arriving when the drain ends: its client takes 2.5 s to send the rest.
    const drain = server.running.ctx.httpDrain;
    const upload = slowPost(
      `${server.url}${mq.path(queue, '/messages')}`,
      server.token,
      JSON.stringify({ messages: [{ body: 'slow' }] }),
    );
    await eventually(() => drain.requestsInFlight === 2, 5000, 'the upload in flight');
    const stopStarted = Date.now();
    // The process exits once stop() resolves: that must not come before the upload's answer.
    const stopping = server.running.stop().then(() => Date.now());
    // Cut short with an empty answer, well before its 30 s wait.
    expect(await secondPoll).toMatchObject({ status: 200, body: { messages: [] } });
    setTimeout(upload.finish, 2500);
    expect(await upload.answered).toBe(201);
    const answeredAt = Date.now();
    expect(await stopping).toBeGreaterThanOrEqual(answeredAt);
    expect(Date.now() - stopStarted).toBeLessThan(scaled(10_000));
    await expect(get(`${server.url}/health`)).rejects.toThrow(/ECONNREFUSED/);
    // A long-poll reaching its wait after the waits were ended is not left waiting.
    const late = await server.running.ctx.mq.hub.listen('a-late-channel');
    expect(late.closed).toBe(true);
    expect(server.running.ctx.mq.hub.waiterCount).toBe(0);
  });
});
