import fc from 'fast-check';
import type { RouteEntry } from '../../../controller/http/route-list.js';
import { deepJsonText, nastyText } from './nasty-values.js';
import { asText, inputFor, type JsonSchema } from './schema-inputs.js';

/** Who sends: the tenant, a runner of its cluster, nobody, or someone with a made-up token. */
export type Caller = 'tenant' | 'runner' | 'none' | 'forged';

/** One generated request, ready to send. */
export interface GeneratedRequest {
  method: string;
  path: string;
  caller: Caller;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What the generator needs to know of the world: real values by path parameter. */
export interface RequestPools {
  params: Record<string, string[]>;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Percent-encodes text as a client would; an unpaired surrogate goes as the three bytes it would have in WTF-8. */
export function percentEncoded(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pairs = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length;
    const low = pairs ? text.charCodeAt(i + 1) : 0;
    if (pairs && low >= 0xdc00 && low <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else if (UNRESERVED.test(text[i]!)) out += text[i];
    else out += encodeURIComponent(text[i]!);
  }
  return out;
}

/** A path parameter: mostly a real one (so the handler gets past "not found"), else hostile; now and then sent unencoded. */
function paramText(name: string, pools: RequestPools): fc.Arbitrary<string> {
  const real = pools.params[name];
  const hostile = fc.oneof(
    { weight: 4, arbitrary: nastyText.map(percentEncoded) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '.', 'a%2Fb', 'a/b', '%00') },
  );
  return real
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...real).map(percentEncoded) },
        { weight: 1, arbitrary: hostile },
      )
    : hostile;
}

function pathFor(url: string, pools: RequestPools): fc.Arbitrary<string> {
  const parts = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':')
        ? paramText(segment.slice(1), pools)
        : segment === '*'
          ? paramText('*', pools)
          : fc.constant(segment),
    );
  return fc.tuple(...parts).map((segments) => segments.join('/'));
}

function queryFor(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  const fields = Object.entries(schema?.properties ?? {}).map(([name, field]) =>
    fc.option(fc.tuple(fc.constant(name), inputFor(field).map(asText)), { freq: 2 }),
  );
  const strangers = fc.array(fc.tuple(nastyText, nastyText), { maxLength: 2 });
  return fc.tuple(fc.tuple(...fields), strangers, fc.boolean()).map(([own, extra, repeat]) => {
    const pairs = [...own.filter((pair) => pair !== null), ...extra];
    if (repeat && pairs[0]) pairs.push(pairs[0]);
    return pairs.map(([key, value]) => `${percentEncoded(key)}=${percentEncoded(value)}`).join('&');
  });
}

const JSON_TYPE = 'application/json';

/** A body: generated JSON for the route's schema mostly; else empty, not JSON, too deep, a form, or a wrong content type. */
function bodyFor(schema: JsonSchema | undefined): fc.Arbitrary<{ type?: string; body?: Buffer }> {
  const json = inputFor(schema ?? { type: 'object' }).map((value) => JSON.stringify(value) ?? 'null');
  const text = (type: string | undefined, body: string | Buffer) => ({ type, body: Buffer.from(body) });
  return fc.oneof(
    { weight: 8, arbitrary: json.map((body) => text(JSON_TYPE, body)) },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', 'nul', '{"a":1}{', '\ud800').map((body) => text(JSON_TYPE, body)),
    },
    {
      weight: 1,
      arbitrary: fc.constant(text(JSON_TYPE, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))),
    },
    { weight: 1, arbitrary: deepJsonText.map((body) => text(JSON_TYPE, body)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          json,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
            'multipart/form-data; boundary=b',
            'application/octet-stream',
            'application/json; charset=latin1',
            'application/xml',
            undefined,
          ),
        )
        .map(([body, type]) => text(type, body)),
    },
    { weight: 1, arbitrary: fc.tuple(json, nastyText).map(([data, name]) => multipart(data, name)) },
  );
}

/** A multipart form as a code upload sends it: a `data` field and a file part. */
function multipart(data: string, fileName: string): { type: string; body: Buffer } {
  const boundary = 'fuzzboundary';
  const body = [
    `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${data}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName.replace(/["\r\n]/g, '')}"\r\n`,
    `Content-Type: application/zip\r\n\r\nPK\u0003\u0004 not really a zip\r\n--${boundary}--\r\n`,
  ].join('');
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.from(body) };
}

/** Header values as the bytes a client would send: UTF-8, as Node's latin1 header strings carry them. */
function headerText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return Buffer.from(text.replace(/[\u0000-\u001f\u007f]/g, ''), 'utf8').toString('latin1');
}

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'Accept',
        'User-Agent',
        'X-Forwarded-For',
        'X-Forwarded-Proto',
        'Cookie',
        'Origin',
        'X-Http-Method-Override',
        'Content-Encoding',
        'Fn-Call-Id',
        'X-Request-Id',
        'Accept-Encoding',
      ),
      fc.oneof(nastyText, fc.constantFrom('DELETE', 'gzip', 'ferrum_session=abc', '1.2.3.4, ::1', 'application/json')),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => Object.fromEntries(pairs.map(([name, value]) => [name, headerText(value)])));

/** Requests to one route: its methods, its path with generated parameters, query, headers and body. */
export function requestsFor(route: RouteEntry, pools: RequestPools, callers: Caller[]): fc.Arbitrary<GeneratedRequest> {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const schema = route.schema as { body?: JsonSchema; querystring?: JsonSchema } | undefined;
  return fc
    .record({
      method: fc.constantFrom(...methods),
      path: pathFor(route.url, pools),
      query: fc.option(queryFor(schema?.querystring), { freq: 2 }),
      caller: fc.constantFrom(...callers),
      headers: extraHeaders,
      body: bodyFor(schema?.body),
    })
    .map(({ method, path, query, caller, headers, body }) => {
      // Clients send JSON bodies even on GET and DELETE (iron_mq does); HEAD never has one.
      const sendsBody = method !== 'HEAD' && body.body !== undefined;
      return {
        method,
        path: query ? `${path}?${query}` : path,
        caller,
        headers: { ...headers, ...(sendsBody && body.type ? { 'Content-Type': body.type } : {}) },
        ...(sendsBody ? { body: body.body } : {}),
      };
    });
}
