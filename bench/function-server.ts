// The server side of bench/isolation.ts's function flood: a controller with its own redis-server
// and a runner taking its function calls, in a process of its own. Prints one JSON line when ready.
import { startTestServer } from '../test/helpers/server.js';
import { startRunner } from '../test/helpers/worker.js';

const env = { LOG_LEVEL: 'error', FERRUM_RUNNER_NETWORK: 'none', FERRUM_FUNCTIONS_RUNNER_SLOTS: '8' };
const server = await startTestServer(env);
const runner = await startRunner(server, env);
process.stdout.write(
  `${JSON.stringify({ url: server.url, token: server.token, projectId: server.projectId, redisUrl: server.redisUrl, keyPrefix: server.config.keyPrefix })}\n`,
);

async function shutdown() {
  await runner.stop();
  await server.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
