import { HTTPParser } from 'http-parser-js';
import type { FunctionInvocation } from '../../src/functions/calls/function-executor.js';
import { FramingError, addResponseHeader, checkResponseSize, forwardedHeaders } from './hot-codec.js';
import type { HotCodec, HotResponse, ResponseDecoder } from './hot-codec.js';

/** The request target (path and query) and Host of the caller's URL. */
function targetOf(requestUrl: string): { target: string; host: string } {
  const url = new URL(requestUrl, 'http://localhost');
  return { target: `${url.pathname}${url.search}`, host: url.host };
}

/**
 * The `http` format: each call is written to stdin as an HTTP/1.1 request carrying the caller's
 * headers, Fn-Call-Id, Fn-Method, Fn-Request-Url, Fn-Deadline and Content-Length; the answer is
 * read from stdout as an HTTP/1.1 response framed by Content-Length or chunked encoding.
 */
export const httpCodec: HotCodec = {
  encodeRequest(invocation: FunctionInvocation, deadline: string): Buffer {
    const { target, host } = targetOf(invocation.requestUrl);
    const lines = [`${invocation.method} ${target} HTTP/1.1`];
    const forwarded = forwardedHeaders(invocation.headers);
    if (!forwarded.some(([name]) => name === 'Host')) lines.push(`Host: ${host}`);
    for (const [name, value] of forwarded) lines.push(`${name}: ${value}`);
    lines.push(
      `Fn-Call-Id: ${invocation.callId}`,
      `Fn-Method: ${invocation.method}`,
      `Fn-Request-Url: ${invocation.requestUrl}`,
      `Fn-Deadline: ${deadline}`,
      `Content-Length: ${invocation.body.length}`,
    );
    // latin1 gives back exactly the bytes Node's HTTP parser read the header values from.
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    return invocation.body.length === 0 ? head : Buffer.concat([head, invocation.body]);
  },

  createDecoder(): ResponseDecoder {
    return new HttpResponseDecoder();
  },
};

/** Statuses whose responses never have a body. */
const BODILESS_STATUS = new Set([204, 304]);

class HttpResponseDecoder implements ResponseDecoder {
  private readonly parser = new HTTPParser(HTTPParser.RESPONSE);
  private readonly completed: HotResponse[] = [];
  private status = 0;
  /** A 1xx interim response is not the call's answer. */
  private interim = false;
  private headers: Record<string, string> = {};
  private bodyChunks: Buffer[] = [];
  private bodyBytes = 0;

  constructor() {
    this.parser[HTTPParser.kOnHeadersComplete] = (info) => this.onHead(info.statusCode, info.headers);
    this.parser[HTTPParser.kOnBody] = (chunk, offset, length) => this.onBody(chunk.subarray(offset, offset + length));
    this.parser[HTTPParser.kOnMessageComplete] = () => this.onComplete();
  }

  push(chunk: Buffer): HotResponse[] {
    const parsed = this.parser.execute(chunk);
    if (parsed instanceof Error)
      throw new FramingError(`the function's HTTP response is malformed (${parsed.message})`);
    return this.completed.splice(0);
  }

  /** Returns 1 (skip the body) for statuses that have none. */
  private onHead(status: number, rawHeaders: string[]): number {
    this.status = status;
    this.interim = status < 200;
    this.headers = {};
    this.bodyChunks = [];
    this.bodyBytes = 0;
    let framed = false;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      const lower = name.toLowerCase();
      if (
        lower === 'content-length' ||
        (lower === 'transfer-encoding' && rawHeaders[i + 1]!.toLowerCase() === 'chunked')
      )
        framed = true;
      addResponseHeader(this.headers, name, rawHeaders[i + 1]!);
    }
    if (this.interim || BODILESS_STATUS.has(status)) return 1;
    if (!framed)
      throw new FramingError(
        'the function\'s HTTP response has neither Content-Length nor "Transfer-Encoding: chunked"',
      );
    return 0;
  }

  private onBody(chunk: Buffer): void {
    this.bodyBytes += chunk.length;
    checkResponseSize(this.bodyBytes);
    // The parser's chunk is the stdout chunk, which is not reused: no copy needed.
    this.bodyChunks.push(chunk);
  }

  private onComplete(): void {
    if (this.interim) return;
    const body = this.bodyChunks.length === 1 ? this.bodyChunks[0]! : Buffer.concat(this.bodyChunks);
    this.completed.push({ status: this.status, headers: this.headers, body });
    this.bodyChunks = [];
  }
}
