import { describe, expect, it } from 'vitest';
import type { FunctionInvocation } from '../../src/functions/calls/function-executor.js';
import { FramingError } from '../../runner/functions/hot-codec.js';
import { httpCodec } from '../../runner/functions/hot-http-codec.js';
import { jsonCodec } from '../../runner/functions/hot-json-codec.js';

const DEADLINE = '2030-01-01T00:00:30.000Z';

const call: FunctionInvocation = {
  callId: '0123456789abcdef01234567',
  appName: 'shop',
  projectId: 'shop-project',
  path: '/orders',
  image: 'ferrum-test/fn-hot-http',
  format: 'http',
  type: 'sync',
  memoryMb: 128,
  timeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  maxConcurrency: 1,
  method: 'POST',
  requestUrl: 'https://fns.example.com/r/shop/orders?id=7',
  headers: {
    'content-type': 'application/json',
    'x-trace': 'abc',
    'content-length': '999',
    connection: 'keep-alive',
    expect: '100-continue',
    'bad header': 'x',
    'x-split': 'a\r\nInjected: yes',
  },
  routeEnv: {},
  body: Buffer.from('{"n":1}'),
};

const decodeAll = (decoder: { push(chunk: Buffer): unknown[] }, ...chunks: string[]) =>
  chunks.flatMap((chunk) => decoder.push(Buffer.from(chunk)));

describe('the http framing', () => {
  it('writes the call as an HTTP/1.1 request with the Fn headers and Content-Length framing', () => {
    const text = httpCodec.encodeRequest(call, DEADLINE).toString('latin1');
    const [head, body] = text.split('\r\n\r\n');
    const lines = head!.split('\r\n');
    expect(lines[0]).toBe('POST /r/shop/orders?id=7 HTTP/1.1');
    expect(lines).toContain('Host: fns.example.com');
    expect(lines).toContain('Content-Type: application/json');
    expect(lines).toContain('X-Trace: abc');
    expect(lines).toContain(`Fn-Call-Id: ${call.callId}`);
    expect(lines).toContain('Fn-Method: POST');
    expect(lines).toContain('Fn-Request-Url: https://fns.example.com/r/shop/orders?id=7');
    expect(lines).toContain(`Fn-Deadline: ${DEADLINE}`);
    expect(lines).toContain('Content-Length: 7');
    // The caller's framing and connection headers, and headers that could not be sent as they are, stay out.
    expect(
      lines.filter((line) => /^(content-length|connection|expect|bad header|x-split|injected):/i.test(line)),
    ).toEqual(['Content-Length: 7']);
    expect(body).toBe('{"n":1}');
  });

  it('reads responses framed by Content-Length or chunks, split or run together', () => {
    const decoder = httpCodec.createDecoder();
    expect(decodeAll(decoder, 'HTTP/1.1 201 Created\r\nX-A: 1\r\nX-A: 2\r\nConte', 'nt-Length: 5\r\n\r\nhel')).toEqual(
      [],
    );
    const [first, second, third] = decodeAll(
      decoder,
      'loHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n',
    ) as { status: number; headers: Record<string, string>; body: Buffer }[];
    expect(first).toMatchObject({ status: 201, headers: { 'x-a': '1, 2' } });
    expect(first!.body.toString()).toBe('hello');
    expect(first!.headers).not.toHaveProperty('content-length');
    expect(second!.body.toString()).toBe('abcde');
    expect(second!.headers).not.toHaveProperty('transfer-encoding');
    expect(third).toMatchObject({ status: 204 });
  });

  it('skips interim 1xx responses', () => {
    const responses = decodeAll(
      httpCodec.createDecoder(),
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    );
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ status: 200 });
  });

  it('refuses output that is not an HTTP response', () => {
    expect(() => decodeAll(httpCodec.createDecoder(), 'hello world\n\n')).toThrow(FramingError);
  });

  it('refuses a response without Content-Length or chunked framing', () => {
    expect(() => decodeAll(httpCodec.createDecoder(), 'HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nbody')).toThrow(
      /neither Content-Length nor "Transfer-Encoding: chunked"/,
    );
  });
});

describe('the json framing', () => {
  it('writes the call as one JSON line in the format of the original functions server', () => {
    const line = jsonCodec.encodeRequest({ ...call, format: 'json' }, DEADLINE).toString();
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(JSON.parse(line)).toEqual({
      call_id: call.callId,
      content_type: 'application/json',
      type: 'sync',
      deadline: DEADLINE,
      body: '{"n":1}',
      protocol: {
        type: 'http',
        method: 'POST',
        request_url: 'https://fns.example.com/r/shop/orders?id=7',
        headers: { 'Content-Type': ['application/json'], 'X-Trace': ['abc'] },
      },
    });
  });

  it('reads one answer per line, lines split across chunks or several in one', () => {
    const decoder = jsonCodec.createDecoder();
    expect(
      decodeAll(decoder, '{"body":"he', 'llo","content_type":"text/plain","protocol":{"status_code":202,'),
    ).toEqual([]);
    const responses = decodeAll(decoder, '"headers":{"X-A":["1","2"],"X-B":"3"}}}\n\n{"body":"second"}\n') as {
      status: number;
      headers: Record<string, string>;
      body: Buffer;
    }[];
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatchObject({
      status: 202,
      headers: { 'content-type': 'text/plain', 'x-a': '1, 2', 'x-b': '3' },
    });
    expect(responses[0]!.body.toString()).toBe('hello');
    expect(responses[1]).toMatchObject({ status: 200, headers: {} });
    expect(responses[1]!.body.toString()).toBe('second');
  });

  it.each([
    ['not JSON', 'hello\n', /not a JSON object per line/],
    ['not an object', '[1,2]\n', /not a JSON object per line/],
    ['a body that is not a string', '{"body":{"a":1}}\n', /"body" must be a string/],
    ['a content_type that is not a string', '{"content_type":5}\n', /"content_type" must be a string/],
    ['a protocol that is not an object', '{"protocol":"http"}\n', /"protocol" must be an object/],
    [
      'a status code out of range',
      '{"protocol":{"status_code":42}}\n',
      /"protocol.status_code" must be an integer from 100 to 599/,
    ],
    ['headers that are not an object', '{"protocol":{"headers":["a"]}}\n', /"protocol.headers" must be an object/],
    [
      'a header value that is not a string',
      '{"protocol":{"headers":{"X-A":[1]}}}\n',
      /header "X-A" must be a string or a list of strings/,
    ],
  ])('refuses %s', (_what, output, message) => {
    expect(() => decodeAll(jsonCodec.createDecoder(), output)).toThrow(message);
  });
});
