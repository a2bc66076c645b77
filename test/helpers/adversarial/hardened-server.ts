import { startTestServer, type TestServer } from '../server.js';
import { useTestServer } from '../test-file.js';

// The adversarial suites' tenants live in tenant-data.ts; these names stay for the files that use them.
export { expectHealthy, newTenant as createTenant, plantVictimData, type Tenant } from './tenant-data.js';

/**
 * A server as production runs it: no outbound allow-list (the ordinary test server lets
 * pushes reach loopback), plus any settings a test adds.
 */
export function startHardenedServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ FERRUM_OUTBOUND_ALLOW: '', ...env });
}

/** The file's server (useTestServer) as production runs it: see startHardenedServer. */
export function useHardenedServer(env: Record<string, string> = {}): TestServer {
  return useTestServer({}, () => startHardenedServer(env));
}
