import net from 'node:net';

/**
 * Sends a request's head only (its headers say what they like, e.g. a Content-Length of
 * gigabytes) and resolves with the answer's status, or null when the server answered nothing
 * before `timeoutMs`; the connection is then closed.
 */
export function sendHeadOnly(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<number | null> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = '';
    const finish = (status: number | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match) finish(Number(match[1]));
    });
    const lines = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}
