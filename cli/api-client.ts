import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { Agent, FormData, request, type Dispatcher } from 'undici';
import type { Method, RequestOptions as SharedOptions, Transport } from '../client/transport.js';
import { baseUrlOf, type ClientConfig } from './config.js';
import { ApiError, CliError, reasonOf } from './errors.js';

// undici parses HTTP with a WebAssembly module, which V8 recompiles in the background after its first
// use, and a process cannot exit before that ends: ~0.26 s added to every command. A command makes
// a few requests, for which the baseline code is fast enough. (Only the command line loads this file.)
setFlagsFromString('--liftoff-only');

/** A JSON object as the APIs answer it. */
export type Json = Record<string, unknown>;

type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (multipart forms, raw function bodies, a stream). */
  body?: string | Buffer | FormData | Readable;
  headers?: Record<string, string>;
  /** Without the platform token: a function call (/r/) must not hand it to the function. */
  anonymous?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A thin HTTP client for the Ferrum APIs carrying the configured token: the shared client's
 * (client/endpoints.js) transport, and the raw requests it does not cover (uploads, /r/ calls).
 */
export class ApiClient implements Transport {
  readonly baseUrl: string;
  /** Its own connections, closed when the command ends: an idle keep-alive socket kept the process up ~0.4 s. */
  private readonly agent = new Agent();

  constructor(readonly config: ClientConfig) {
    this.baseUrl = baseUrlOf(config);
  }

  /** Closes its connections (the command has read every answer it wanted by then). */
  async dispose(): Promise<void> {
    await this.agent.destroy();
  }

  /** The project the commands act on; a usage error when none is configured. */
  projectId(): string {
    if (!this.config.projectId) {
      throw new CliError('no project id: set project_id in iron.json, IRON_PROJECT_ID, or pass --project-id', 2);
    }
    return this.config.projectId;
  }

  urlOf(path: string, query: Query = {}): string {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private headersFor(options: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (!options.anonymous) {
      if (!this.config.token) throw new CliError('no token: set token in iron.json, IRON_TOKEN, or pass --token', 2);
      headers.authorization = `OAuth ${this.config.token}`;
    }
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    return { ...headers, ...options.headers };
  }

  private async send(
    method: Dispatcher.HttpMethod,
    path: string,
    options: RequestOptions,
  ): Promise<Dispatcher.ResponseData> {
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
    const headers = this.headersFor(options);
    try {
      return await request(this.urlOf(path, options.query), { method, headers, body, dispatcher: this.agent });
    } catch (error) {
      throw new CliError(`cannot reach ${this.baseUrl} (from ${this.config.addressFrom}): ${(error as Error).message}`);
    }
  }

  /** Any method; answers the raw response whatever its status. */
  async raw(method: Dispatcher.HttpMethod, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    const response = await this.send(method, path, options);
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  /** A request whose 2xx answer is returned as bytes; any other status becomes an ApiError. */
  async bytes(method: Dispatcher.HttpMethod, path: string, options: RequestOptions = {}): Promise<Buffer> {
    const response = await this.send(method, path, options);
    const body = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new ApiError(response.statusCode, reasonOf(response.statusCode, body.toString('utf8')));
    return body;
  }

  /** A request whose 2xx answer is returned as text; any other status becomes an ApiError. */
  async text(method: Dispatcher.HttpMethod, path: string, options: RequestOptions = {}): Promise<string> {
    const response = await this.raw(method, path, options);
    if (response.status < 200 || response.status >= 300)
      throw new ApiError(response.status, reasonOf(response.status, response.text));
    return response.text;
  }

  /** A request whose 2xx answer is JSON. */
  async call<T = unknown>(method: Dispatcher.HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
    const text = await this.text(method, path, options);
    if (text === '') return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(`the server answered ${method} ${path} with non-JSON: ${text.slice(0, 200)}`);
    }
  }

  /** The shared client's JSON request. */
  json<T>(method: Method, path: string, options: SharedOptions = {}): Promise<T> {
    return this.call<T>(method, path, options);
  }
}

export { FormData };
