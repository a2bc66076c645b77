import net from 'node:net';

/**
 * Cluster node ports (and their bus ports, +10,000) below Linux's ephemeral range (32768 on):
 * the tests' restart of a killed cluster binds the same ports again, and a port from the
 * ephemeral range could meanwhile be the local end of any outgoing connection on the machine
 * (a benchmark's, another lane's), so the node could not come back.
 */
const LOWEST = 12_000;
const SPAN = 10_000;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose bus port is free too, both outside the ephemeral range; random, so parallel files rarely meet. */
export async function freeClusterNodePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * SPAN);
    if ((await canListen(port)) && (await canListen(port + 10_000))) return port;
  }
  throw new Error(`no free cluster node port in ${LOWEST}-${LOWEST + SPAN} after 100 tries`);
}
