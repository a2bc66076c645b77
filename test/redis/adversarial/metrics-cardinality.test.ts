import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../helpers/http.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { scaled } from '../../helpers/pace.js';

// /metrics (and, with FERRUM_WORKERS, the primary's sum of every worker's figures, which keeps
// each worker's label sets) is labelled by route pattern, method and status only: a tenant or a
// stranger sending a thousand made-up paths, queue names, method overrides and query strings
// adds no label set per request.
const server = useHardenedServer();
const tenant = useTenant(server, 'cardinality');

async function httpLabelSets(): Promise<string[]> {
  const text = (await new HttpClient(server.url, null).get('/metrics')).text;
  return text
    .split('\n')
    .filter((line) => line.startsWith('ferrum_http_request_duration_seconds_count{'))
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
}

describe('metrics label cardinality', () => {
  it(
    '100 distinct requests (four each) add a bounded number of label sets, none naming what was sent',
    async () => {
      const stranger = new HttpClient(server.url, null);
      const before = await httpLabelSets();
      const project = `/3/projects/${tenant.projectId}`;
      for (let batch = 0; batch < 2; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            const n = batch * 50 + i;
            const unique = `probe${n}x`;
            await tenant.http.get(`${project}/queues/${unique}?q=${unique}`);
            await tenant.http.post(`${project}/queues/${unique}/messages`, { messages: [{ body: unique }] });
            await stranger.get(`/no/such/${unique}`);
            await tenant.http.post(`${project}/queues/${unique}`, undefined, {
              headers: { 'x-http-method-override': `${unique}` },
            });
          }),
        );
      }
      const after = await httpLabelSets();
      expect(after.join('\n')).not.toMatch(/probe\d+x/);
      expect(after.length - before.length).toBeLessThan(20);
    },
    scaled(120_000),
  );
});
