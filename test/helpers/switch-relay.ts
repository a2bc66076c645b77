import net from 'node:net';

/**
 * A TCP relay on loopback standing where a load balancer stands in a rolling upgrade: each new
 * connection goes to the port it points at now; connections already open stay where they are.
 */
export interface SwitchRelay {
  url: string;
  /** Sends later connections to this port. */
  pointAt(port: number): void;
  close(): Promise<void>;
}

export async function startSwitchRelay(port: number): Promise<SwitchRelay> {
  let target = port;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${own}`,
    pointAt: (next) => (target = next),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
