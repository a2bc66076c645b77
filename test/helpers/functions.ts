import { eventually } from './eventually.js';
import type { HttpClient, HttpResponse } from './http.js';

/** The functions API as tests use it: routes made in one call, raw calls of /r/, call records. */
export class FunctionsClient {
  constructor(readonly http: HttpClient) {}

  async route(app: string, route: Record<string, unknown>): Promise<any> {
    const response = await this.http.post(`/v1/apps/${app}/routes`, { route });
    if (response.status !== 200) throw new Error(`route create failed: ${response.status} ${response.text}`);
    return response.body.route;
  }

  /** Calls /r/{app}{path} without the management token. */
  call(
    method: string,
    appAndPath: string,
    body?: string | Buffer,
    headers: Record<string, string> = {},
  ): Promise<HttpResponse> {
    return this.http.request(method, `/r/${appAndPath}`, { token: null, raw: body, headers });
  }

  async record(app: string, callId: string): Promise<any> {
    return (await this.http.get(`/v1/apps/${app}/calls/${callId}`)).body.call;
  }

  async log(app: string, callId: string): Promise<string> {
    return (await this.http.get(`/v1/apps/${app}/calls/${callId}/log`)).body.log.log;
  }

  /** Polls until the call record is in one of `statuses`. */
  async waitFor(app: string, callId: string, statuses: string[], timeoutMs = 20000): Promise<any> {
    let call: any;
    return eventually(
      async () => {
        call = await this.record(app, callId);
        return call && statuses.includes(call.status) && call;
      },
      timeoutMs,
      `call ${callId} to be ${statuses.join('/')}`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: it is ${call?.status}`);
    });
  }
}
