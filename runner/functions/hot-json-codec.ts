import type { FunctionInvocation } from '../../src/functions/calls/function-executor.js';
import { FramingError, addResponseHeader, checkResponseSize, forwardedHeaders } from './hot-codec.js';
import type { HotCodec, HotResponse, ResponseDecoder } from './hot-codec.js';

const NEWLINE = 0x0a;

/**
 * The `json` format: one JSON object per line each way. In:
 * `{"call_id","content_type","type":"sync","deadline","body","protocol":{"type":"http","method","request_url","headers":{Name:[values]}}}`;
 * out: `{"body","content_type","protocol":{"status_code","headers":{name:[values]}}}`.
 */
export const jsonCodec: HotCodec = {
  encodeRequest(invocation: FunctionInvocation, deadline: string): Buffer {
    const headers: Record<string, string[]> = {};
    for (const [name, value] of forwardedHeaders(invocation.headers)) headers[name] = [value];
    const request = {
      call_id: invocation.callId,
      content_type: invocation.headers['content-type'] ?? '',
      type: 'sync',
      deadline,
      body: invocation.body.toString('utf8'),
      protocol: { type: 'http', method: invocation.method, request_url: invocation.requestUrl, headers },
    };
    return Buffer.from(`${JSON.stringify(request)}\n`, 'utf8');
  },

  createDecoder(): ResponseDecoder {
    return new JsonLineDecoder();
  },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function headersOf(raw: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw === undefined || raw === null) return headers;
  if (!isObject(raw)) throw new FramingError('the function\'s JSON response: "protocol.headers" must be an object');
  for (const [name, value] of Object.entries(raw)) {
    const values = Array.isArray(value) ? value : [value];
    if (!values.every((item) => typeof item === 'string')) {
      throw new FramingError(`the function's JSON response: header "${name}" must be a string or a list of strings`);
    }
    for (const item of values as string[]) addResponseHeader(headers, name, item);
  }
  return headers;
}

function statusOf(raw: unknown): number {
  if (raw === undefined || raw === null) return 200;
  if (!Number.isInteger(raw) || (raw as number) < 100 || (raw as number) > 599) {
    throw new FramingError('the function\'s JSON response: "protocol.status_code" must be an integer from 100 to 599');
  }
  return raw as number;
}

/** One output line → a response; FramingError naming what is wrong with it. */
export function responseOfLine(line: string): HotResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new FramingError(`the function's output is not a JSON object per line (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw new FramingError("the function's output is not a JSON object per line");
  const { body, content_type: contentType, protocol } = parsed;
  if (body !== undefined && body !== null && typeof body !== 'string')
    throw new FramingError('the function\'s JSON response: "body" must be a string');
  if (contentType !== undefined && contentType !== null && typeof contentType !== 'string') {
    throw new FramingError('the function\'s JSON response: "content_type" must be a string');
  }
  if (protocol !== undefined && protocol !== null && !isObject(protocol))
    throw new FramingError('the function\'s JSON response: "protocol" must be an object');
  const headers = headersOf(protocol?.headers);
  if (contentType && !('content-type' in headers)) headers['content-type'] = contentType;
  return { status: statusOf(protocol?.status_code), headers, body: Buffer.from(body ?? '', 'utf8') };
}

class JsonLineDecoder implements ResponseDecoder {
  /** Bytes of a line not finished yet. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  push(chunk: Buffer): HotResponse[] {
    const responses: HotResponse[] = [];
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline >= 0) {
      const line = this.takeLine(chunk.subarray(start, newline));
      if (line.trim() !== '') responses.push(responseOfLine(line));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
    return responses;
  }

  private takeLine(end: Buffer): string {
    if (this.pending.length === 0) return end.toString('utf8');
    const line = Buffer.concat([...this.pending, end]).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }

  private keep(part: Buffer): void {
    this.pendingBytes += part.length;
    checkResponseSize(this.pendingBytes);
    this.pending.push(part);
  }
}
