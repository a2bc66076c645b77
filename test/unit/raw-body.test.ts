import { PassThrough } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { joined, readRawBody, type RawBody } from '../../controller/http/raw-body.js';

// The JSON parser reads bodies itself (so a large one is joined by the parse thread, not on the
// event loop): it must keep fastify's own reader's limits and refusals.
function requestOf(limit: number, contentLength?: number): FastifyRequest {
  const headers = contentLength === undefined ? {} : { 'content-length': String(contentLength) };
  return { routeOptions: { bodyLimit: limit }, headers } as unknown as FastifyRequest;
}

function read(request: FastifyRequest, send: (stream: PassThrough) => void): Promise<RawBody> {
  const stream = new PassThrough();
  const body = new Promise<RawBody>((resolve, reject) =>
    readRawBody(request, stream, (error, read) => (error ? reject(error) : resolve(read!))),
  );
  send(stream);
  return body;
}

const chunks = (stream: PassThrough, ...parts: string[]) => {
  for (const part of parts) stream.write(Buffer.from(part));
  stream.end();
};

describe('reading a body as chunks', () => {
  it('hands over the chunks as read, and their length; joined they are the body', async () => {
    const body = await read(requestOf(100, 8), (stream) => chunks(stream, 'é☃', 'ab', 'c'));
    expect(body.chunks.map(String)).toEqual(['é☃', 'ab', 'c']);
    expect(body.length).toBe(8);
    expect(joined(body).toString()).toBe('é☃abc');
  });

  it("refuses a declared length over the route's limit before reading, and a body that grows past it", async () => {
    const declared = read(requestOf(5, 6), () => undefined);
    await expect(declared).rejects.toMatchObject({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
    const streamed = read(requestOf(5), (stream) => chunks(stream, 'abc', 'def'));
    await expect(streamed).rejects.toMatchObject({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
  });

  it('refuses a body shorter or longer than its Content-Length, and passes on a stream error as a 4xx', async () => {
    const short = read(requestOf(100, 5), (stream) => chunks(stream, 'abc'));
    await expect(short).rejects.toMatchObject({ code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', statusCode: 400 });
    const broken = read(requestOf(100), (stream) => stream.destroy(new Error('aborted')));
    await expect(broken).rejects.toMatchObject({ message: 'aborted', statusCode: 400 });
  });
});
