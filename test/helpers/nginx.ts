import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { eventually } from './eventually.js';

export const NGINX = '/usr/sbin/nginx';

/** One upstream server of the proxy; `down` ones get no request (nginx's `down` flag). */
export interface Upstream {
  port: number;
  down: boolean;
}

/**
 * Debian's nginx as a child process (not the system service): a reverse proxy on a loopback
 * port in front of `upstreams`, with nginx's own passive failover (`proxy_next_upstream error
 * timeout`: another server is tried only while the request has not been sent, so a POST is
 * never sent twice). It closes every client connection after its answer, so reloads race with
 * no kept-alive client connection.
 */
export interface TestNginx {
  url: string;
  /** Rewrites the upstream list and reloads; resolves once new requests use the new list. */
  setUpstreams(upstreams: Upstream[]): Promise<void>;
  errorLog(): string;
  stop(): Promise<void>;
}

function config(dir: string, port: number, generation: number, upstreams: Upstream[]): string {
  const servers = upstreams
    .map(
      ({ port: upstream, down }) =>
        `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=1s${down ? ' down' : ''};`,
    )
    .join('\n');
  const asRoot = process.getuid?.() === 0 ? 'user root root;\n' : '';
  return `${asRoot}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client-body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream ferrum {
${servers}
  }
  server {
    listen 127.0.0.1:${port};
    keepalive_timeout 0;
    client_max_body_size 8m;
    location = /__generation { return 200 "${generation}"; }
    location / {
      proxy_pass http://ferrum;
      proxy_next_upstream error timeout;
      proxy_read_timeout 60s;
    }
  }
}
`;
}

export async function startNginx(upstreams: Upstream[]): Promise<TestNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-nginx-'));
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const confFile = path.join(dir, 'nginx.conf');
  let generation = 1;
  fs.writeFileSync(confFile, config(dir, port, generation, upstreams));
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', confFile, '-e', 'stderr', '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = () =>
    stderr + (fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8') : '');
  const serving = async (wanted: number) => {
    if (child.exitCode !== null) throw new Error(`nginx exited:\n${errorLog()}`);
    const response = await fetch(`${url}/__generation`).catch(() => null);
    return response !== null && (await response.text()) === String(wanted);
  };
  await eventually(() => serving(generation), 20_000, 'nginx serving');
  return {
    url,
    async setUpstreams(next) {
      generation += 1;
      fs.writeFileSync(confFile, config(dir, port, generation, next));
      child.kill('SIGHUP');
      const wanted = generation;
      await eventually(() => serving(wanted), 20_000, `nginx reloaded (generation ${wanted})`);
    },
    errorLog,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
