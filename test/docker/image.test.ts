import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { eventually } from '../helpers/eventually.js';
import { HttpClient } from '../helpers/http.js';
import { buildFerrumImage, containerState, docker } from '../helpers/image.js';
import { startTestRedis } from '../helpers/redis.js';
import { scaled } from '../helpers/pace.js';

// The Ferrum image built from this tree on a local Node base, each role run from it with
// --network host against a private redis-server on loopback.

const BOOTSTRAP_TOKEN = 'imagetest0123456789abcdef';
const containers: string[] = [];
let image: string;
let redis: Awaited<ReturnType<typeof startTestRedis>>;
let imageCommands: string;

function containerName(role: string): string {
  const name = `ferrum-image-test-${role}-${process.pid}`;
  containers.push(name);
  return name;
}

async function waitForHealth(http: HttpClient, name: string): Promise<void> {
  await eventually(
    async () => {
      const response = await http.get('/health').catch(() => null);
      if (response?.status === 200) return true;
      if (!(await containerState(name)).running) throw new Error(`container exited:\n${await docker('logs', name)}`);
      return false;
    },
    30_000,
    `a /health answer of ${name}`,
  ).catch(async (error: Error) => {
    if (error.message.startsWith('container exited')) throw error;
    throw new Error(`${error.message}:\n${await docker('logs', name).catch(() => '')}`);
  });
}

beforeAll(async () => {
  image = await buildFerrumImage();
  redis = await startTestRedis();
  imageCommands = await docker('run', '--rm', '--network', 'none', image, 'help');
}, scaled(600_000));

afterAll(async () => {
  for (const name of containers) await docker('rm', '-f', name).catch(() => undefined);
  await redis?.stop();
});

describe('the Ferrum image', () => {
  it('runs as an unprivileged user with the controller as its default command', async () => {
    const [user, entrypoint, command] = (
      await docker('image', 'inspect', '-f', '{{.Config.User}}|{{json .Config.Entrypoint}}|{{json .Config.Cmd}}', image)
    ).split('|');
    expect(user).toBe('1000:1000');
    expect(JSON.parse(entrypoint!)).toEqual(['node', '/app/dist/bin/ferrum.js']);
    expect(JSON.parse(command!)).toEqual(['controller']);
    expect(imageCommands).toContain('controller');
  });

  it('carries a health check and OCI labels with the version of package.json', async () => {
    const healthcheck = JSON.parse(await docker('image', 'inspect', '-f', '{{json .Config.Healthcheck.Test}}', image));
    expect(healthcheck.join(' ')).toContain('/health');
    const labels = JSON.parse(await docker('image', 'inspect', '-f', '{{json .Config.Labels}}', image));
    const packageJson = fs.readFileSync(path.join(import.meta.dirname, '../..', 'package.json'), 'utf8');
    expect(labels).toMatchObject({ 'org.opencontainers.image.version': JSON.parse(packageJson).version });
  });

  describe('controller role', () => {
    let http: HttpClient;
    let name: string;

    beforeAll(async () => {
      const port = await freeLoopbackPort();
      name = containerName('controller');
      // Read-only root with writable /tmp and data directory, as the Helm chart runs it.
      await docker(
        'run',
        '-d',
        '--name',
        name,
        '--network',
        'host',
        '--read-only',
        '--tmpfs',
        '/tmp',
        '--tmpfs',
        '/var/lib/ferrum:uid=1000,gid=1000',
        '-e',
        'HOST=127.0.0.1',
        '-e',
        `PORT=${port}`,
        '-e',
        `REDIS_URL=${redis.url}`,
        '-e',
        `FERRUM_BOOTSTRAP_TOKEN=${BOOTSTRAP_TOKEN}`,
        '-e',
        'LOG_LEVEL=warn',
        image,
        'controller',
      );
      http = new HttpClient(`http://127.0.0.1:${port}`);
      await waitForHealth(http, name);
    }, scaled(60_000));

    it('answers /health and /ready', async () => {
      expect(await http.get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const ready = await http.get('/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
      expect(typeof ready.body.redis_ms).toBe('number');
    });

    it('bootstraps into the given Redis and serves authenticated calls with the bootstrap token', async () => {
      const projects = await http.get('/1/projects', { token: BOOTSTRAP_TOKEN });
      expect(projects.status).toBe(200);
      expect(projects.body.projects).toHaveLength(1);
      expect(projects.body.projects[0].name).toBe('default');
      const client = new Redis(redis.url);
      try {
        expect((await client.keys('ferrum:*')).length).toBeGreaterThan(0);
      } finally {
        client.disconnect();
      }
    });

    it('serves the dashboard', async () => {
      const page = await http.get('/');
      expect(page.status).toBe(200);
      expect(page.text).toContain('<html');
      expect((await http.get('/ui/app.js')).status).toBe(200);
    });

    it('refuses a call without the token', async () => {
      const response = await http.get('/1/projects');
      expect(response.status).toBe(401);
      expect(typeof response.body.msg).toBe('string');
    });

    it('writes the bootstrap iron.json into its data directory', async () => {
      const ironJson = JSON.parse(await docker('exec', name, 'cat', '/var/lib/ferrum/iron.json'));
      expect(ironJson).toMatchObject({ token: BOOTSTRAP_TOKEN, scheme: 'http' });
    });

    it("runs the Helm chart's preStop hook (sleep) in the running container", async () => {
      await docker('exec', name, 'sleep', '0');
    });

    it('stops cleanly on SIGTERM', async () => {
      await docker('stop', '--time', '20', name);
      expect(await containerState(name)).toEqual({ running: false, exitCode: 0 });
    });
  });

  // bin/ferrum.ts has the runner command (the chart starts runners with `ferrum runner`): an
  // image without it fails here rather than skipping.
  describe('runner role', () => {
    const socket = '/var/run/docker.sock';
    const socketGroup = () => String(fs.statSync(socket).gid);

    it("reaches the Docker engine through the socket as the image's unprivileged user", async () => {
      const script =
        "import('dockerode').then(async ({ default: Docker }) => console.log((await new Docker().version()).ApiVersion))";
      const apiVersion = await docker(
        'run',
        '--rm',
        '--network',
        'none',
        '-v',
        `${socket}:${socket}`,
        '--group-add',
        socketGroup(),
        '--workdir',
        '/app',
        '--entrypoint',
        'node',
        image,
        '-e',
        script,
      );
      expect(apiVersion).toBe(await docker('version', '-f', '{{.Server.APIVersion}}'));
    });

    it(
      'starts against the test Redis and the Docker engine, and drains on SIGTERM',
      async () => {
        expect(imageCommands, "the image's `help` lists the runner command").toMatch(/^\s*runner\b/m);
        const name = containerName('runner');
        const port = await freeLoopbackPort();
        await docker(
          'run',
          '-d',
          '--name',
          name,
          '--network',
          'host',
          '-e',
          'HOST=127.0.0.1',
          '-e',
          `PORT=${port}`,
          '-v',
          `${socket}:${socket}`,
          '--group-add',
          socketGroup(),
          '-e',
          `REDIS_URL=${redis.url}`,
          '-e',
          'FERRUM_RUNNER_CLUSTER=image-test',
          '-e',
          'LOG_LEVEL=warn',
          image,
          'runner',
        );
        // Started once it serves /health: a SIGTERM before its handlers exist is lost on PID 1.
        await waitForHealth(new HttpClient(`http://127.0.0.1:${port}`), name);
        await docker('stop', '--time', '30', name);
        expect(await containerState(name)).toEqual({ running: false, exitCode: 0 });
      },
      scaled(60_000),
    );
  });
});
