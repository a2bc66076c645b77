import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../../src/core/free-port.js';
import { VERSION } from '../../../src/core/version.js';
import { useCliSession, type CliResult } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { createCluster, createRunnerToken, FAST_WORKER_ENV } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// `ferrum runner` as docs/cli.md shows it, run as the real CLI: flags, its metrics port.

let cluster: string;
const session = useCliSession();

beforeAll(async () => {
  cluster = await createCluster(session.server.http, 'cli-runner');
});

/** A runner's environment: fast settings, no Redis, no key, and no Docker engine (a runner starts without one). */
function runnerEnv(env: Record<string, string>): Record<string, string> {
  return {
    ...FAST_WORKER_ENV,
    FERRUM_ENCRYPTION_KEY: '',
    REDIS_URL: '',
    PORT: '',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DOCKER_HOST: `unix://${path.join(os.tmpdir(), 'ferrum-no-docker-engine.sock')}`,
    ...env,
  };
}

async function runnersOf(id: string): Promise<{ instance_id: string }[]> {
  return (await session.server.http.get(`/2/clusters/${id}/runners`)).body.runners;
}

describe('ferrum runner', { timeout: scaled(120_000) }, () => {
  it('--api and --token (as docs/cli.md shows) start a gateway runner with its metrics on its own port', async () => {
    const { token } = await createRunnerToken(session.server, cluster);
    const metricsPort = await freeLoopbackPort();
    const { child, result } = session.cli.start(['runner', '--api', session.server.url, '--token', token], {
      env: runnerEnv({ FERRUM_RUNNER_METRICS_PORT: String(metricsPort) }),
      onStdout: (chunk) => (output += chunk),
    });
    let output = '';
    let ended: CliResult | undefined;
    void result.then((value) => (ended = value));
    try {
      // Once it says it started, its signal handlers are in place.
      await eventually(() => ended !== undefined || output.includes('runner started'), 30_000, 'runner start');
      expect(ended, ended?.stderr).toBeUndefined();
      expect(await runnersOf(cluster)).toHaveLength(1);
      const health = await fetch(`http://127.0.0.1:${metricsPort}/health`);
      expect({ status: health.status, body: await health.json() }).toEqual({
        status: 200,
        body: { status: 'ok', version: VERSION },
      });
      expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toContain('ferrum_runner');
    } finally {
      child.kill('SIGTERM');
    }
    const stopped = await result;
    expect(stopped.code, stopped.stderr).toBe(0);
  });

  it('exits at once, naming the setting, when its metrics port is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const idle = await createCluster(session.server.http, 'cli-runner-port-taken');
      const { token } = await createRunnerToken(session.server, idle);
      const result = await session.cli.run(['runner', '--api', session.server.url, '--token', token], {
        env: runnerEnv({ FERRUM_RUNNER_METRICS_PORT: String(port) }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cannot serve /metrics and /health on 127.0.0.1:${port}: it is in use`);
      expect(result.stderr).toContain('FERRUM_RUNNER_METRICS_PORT');
      // It stopped before registering or taking anything.
      expect(await runnersOf(idle)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('refuses an unknown runner token and a gateway without --api', async () => {
    const metricsPort = String(await freeLoopbackPort());
    const unknown = await session.cli.run(['runner', '--api', session.server.url, '--token', 'runner_nope'], {
      env: runnerEnv({ FERRUM_RUNNER_METRICS_PORT: metricsPort }),
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Invalid or revoked runner token');

    const noApi = await session.cli.run(['runner', '--token', 'runner_x'], {
      env: runnerEnv({ FERRUM_API_URL: '' }),
    });
    expect(noApi.code).toBe(1);
    expect(noApi.stderr).toContain('FERRUM_API_URL must name the API the runner reaches');
  });
});
