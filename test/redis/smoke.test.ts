import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/core/version.js';
import { useTestServer } from '../helpers/test-file.js';

const server = useTestServer();
describe('system endpoints', () => {
  it('answers health and readiness', async () => {
    const health = await server.http.get('/health');
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', version: VERSION } });
    const ready = await server.http.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});
