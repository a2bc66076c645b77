import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/core/version.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('system endpoints', () => {
  it('answers health and readiness', async () => {
    const health = await server.http.get('/health');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', version: VERSION } });
    const ready = await server.http.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});
