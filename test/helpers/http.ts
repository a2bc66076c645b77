import http from 'node:http';

export interface HttpResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  raw?: string | Buffer | FormData;
  token?: string | null;
  headers?: Record<string, string>;
}

/** A small HTTP client over real sockets (Node's fetch), speaking to one base URL. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  withToken(token: string | null): HttpClient {
    return new HttpClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.Authorization = `OAuth ${token}`;
    let body: string | Buffer | FormData | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body: body as BodyInit | undefined });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, text, headers: response.headers };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  /** A POST of `raw` as it is, sent as `contentType`. */
  postRaw<T = any>(path: string, raw: string | Buffer, contentType: string, options?: RequestOptions) {
    return this.request<T>('POST', path, {
      ...options,
      raw,
      headers: { ...options?.headers, 'Content-Type': contentType },
    });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('DELETE', path, { ...options, body });
  }
}

/**
 * A GET on a keep-alive connection of its own, with the answer's Connection header (which fetch
 * hides): `close` when the server ends the connection after it.
 */
export function getOnOwnConnection(url: string): Promise<{ status: number; connection: string | undefined }> {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection }));
      })
      .on('error', reject);
  }).finally(() => agent.destroy());
}
