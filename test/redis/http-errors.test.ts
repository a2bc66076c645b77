import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/test-file.js';

const server = useTestServer({ FERRUM_BODY_LIMIT: String(64 * 1024) });
describe('error model', () => {
  it('answers malformed JSON with 400 and a message', async () => {
    const res = await server.http.request('POST', '/1/projects', {
      raw: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain('Invalid JSON');
  });

  it('answers an oversized body with 413 and a message', async () => {
    const res = await server.http.post('/1/projects', { name: 'x'.repeat(100 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.msg).toContain('too large');
  });

  it('answers unknown routes with 404 and wrong methods with 405, both {"msg"}', async () => {
    const unknown = await server.http.get('/1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toContain('not found');
    const wrongMethod = await server.http.put('/1/users', {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    expect(wrongMethod.body.msg).toContain('not allowed');
    expect((await server.http.request('POST', `/1/users/${'x'}`)).status).toBe(405);
  });

  it('answers a broken percent-escape in the path with 400 {"msg"}', async () => {
    const res = await server.http.get('/1/users/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body.msg).toContain('percent-encoding');
  });

  it('accepts JSON bodies on GET and DELETE, and empty JSON bodies', async () => {
    // fetch refuses a body on GET, as browsers do; existing clients send one anyway.
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL('/1/tokens', server.url);
      const req = http.request(url, {
        method: 'GET',
        headers: { Authorization: `OAuth ${server.token}`, 'Content-Type': 'application/json', 'Content-Length': '2' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(200);
    const project = await server.http.post('/1/projects', { name: 'to-delete' });
    const del = await server.http.request('DELETE', `/1/projects/${project.body.id}`, {
      raw: '',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(del.status).toBe(200);
  });

  it('answers a non-JSON body to a JSON route with 400, not 500', async () => {
    const res = await server.http.request('POST', '/1/projects', {
      raw: 'name=x',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBeTruthy();
  });

  it('exposes Prometheus metrics with a request duration histogram by route', async () => {
    await server.http.get('/1/tokens');
    const res = await server.http.get('/metrics', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toContain('# TYPE ferrum_http_request_duration_seconds histogram');
    expect(res.text).toMatch(
      /ferrum_http_request_duration_seconds_count\{method="GET",route="\/1\/tokens",status="2xx"\} \d+/,
    );
    expect(res.text).toContain('ferrum_process_resident_memory_bytes');
  });

  it('counts each response once under its route pattern, HEAD too, and what no route matched as unmatched', async () => {
    const count = async (method: string, route: string, status: string) => {
      const text = (await server.http.get('/metrics', { token: null })).text;
      const line = text
        .split('\n')
        .find((row) =>
          row.startsWith(
            `ferrum_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`,
          ),
        );
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const [heads, unmatched] = [await count('HEAD', '/1/tokens', '2xx'), await count('GET', 'unmatched', '4xx')];
    expect((await server.http.request('HEAD', '/1/tokens')).status).toBe(200);
    expect((await server.http.get('/no/such/route')).status).toBe(404);
    expect(await count('HEAD', '/1/tokens', '2xx')).toBe(heads + 1);
    expect(await count('GET', 'unmatched', '4xx')).toBe(unmatched + 1);
  });
});
