// The server side of bench/cache.ts: a controller with its own redis-server, in a process of
// its own so the load generator does not share its event loop. Prints one JSON line when ready.
import { startTestServer } from '../test/helpers/server.js';

const server = await startTestServer({ LOG_LEVEL: 'error' });
process.stdout.write(
  `${JSON.stringify({ url: server.url, token: server.token, projectId: server.projectId, redisUrl: server.redisUrl, keyPrefix: server.config.keyPrefix })}\n`,
);

async function shutdown() {
  await server.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
