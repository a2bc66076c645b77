import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrlOf, ConfigError, loadClientConfig, type ConfigSources } from '../../cli/config.js';
import { ApiClient } from '../../cli/api-client.js';
import { reasonOf } from '../../cli/errors.js';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('ferrum-cli-config-');

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

function sources(overrides: Partial<ConfigSources> = {}): ConfigSources {
  return { cwd: tempDir(), home: tempDir(), env: {}, flags: {}, ...overrides };
}

describe('client configuration', () => {
  it('defaults to http://localhost:8080 with no token or project', () => {
    expect(loadClientConfig(sources())).toEqual({
      host: 'localhost',
      port: 8080,
      protocol: 'http',
      addressFrom: 'the defaults',
    });
  });

  it('layers ~/.iron.json < IRON_* < .ferrum/iron.json < ./iron.json < --iron-json < flags', () => {
    const all = sources({
      env: {
        IRON_TOKEN: 'env-token',
        IRON_PROJECT_ID: 'env-project',
        IRON_HOST: 'env-host',
        IRON_PORT: '2000',
        IRON_PROTOCOL: 'https',
      },
    });
    writeJson(path.join(all.home, '.iron.json'), {
      token: 'home-token',
      project_id: 'home-project',
      host: 'home-host',
      port: 1000,
    });
    expect(loadClientConfig(all)).toEqual({
      token: 'env-token',
      projectId: 'env-project',
      host: 'env-host',
      port: 2000,
      protocol: 'https',
      addressFrom: 'the IRON_* variables',
    });

    writeJson(path.join(all.cwd, '.ferrum', 'iron.json'), { token: 'started-token', port: 3000, scheme: 'http' });
    expect(loadClientConfig(all)).toMatchObject({
      token: 'started-token',
      projectId: 'env-project',
      port: 3000,
      protocol: 'http',
      addressFrom: 'the IRON_* variables, .ferrum/iron.json',
    });

    writeJson(path.join(all.cwd, 'iron.json'), { token: 'local-token', port: 4000 });
    expect(loadClientConfig(all)).toMatchObject({ token: 'local-token', port: 4000, host: 'env-host' });

    writeJson(path.join(all.cwd, 'other.json'), { project_id: 'file-project' });
    expect(loadClientConfig({ ...all, configFile: 'other.json' })).toMatchObject({
      token: 'local-token',
      projectId: 'file-project',
    });

    expect(
      loadClientConfig({ ...all, configFile: 'other.json', flags: { token: 'flag-token', port: 5000 } }),
    ).toMatchObject({
      token: 'flag-token',
      projectId: 'file-project',
      port: 5000,
    });
  });

  it('reads the data directory named by FERRUM_DATA_DIR', () => {
    const config = sources({ env: { FERRUM_DATA_DIR: 'state' } });
    writeJson(path.join(config.cwd, 'state', 'iron.json'), { token: 'from-data-dir' });
    expect(loadClientConfig(config).token).toBe('from-data-dir');
  });

  it('refuses malformed files and values, naming the source', () => {
    const broken = sources();
    writeJson(path.join(broken.cwd, 'iron.json'), '{"token":');
    expect(() => loadClientConfig(broken)).toThrow(/iron.json is not valid JSON/);

    const list = sources();
    writeJson(path.join(list.cwd, 'iron.json'), '[1]');
    expect(() => loadClientConfig(list)).toThrow(/must hold a JSON object/);

    const badPort = sources();
    writeJson(path.join(badPort.home, '.iron.json'), { port: 'eighty' });
    expect(() => loadClientConfig(badPort)).toThrow(/\.iron\.json: port must be 1-65535, got "eighty"/);

    const numericToken = sources();
    writeJson(path.join(numericToken.cwd, 'iron.json'), { token: 42 });
    expect(() => loadClientConfig(numericToken)).toThrow(/token must be a string/);

    expect(() => loadClientConfig(sources({ env: { IRON_PORT: '0' } }))).toThrow(/IRON_PORT: port must be 1-65535/);
    expect(() => loadClientConfig(sources({ env: { IRON_PROTOCOL: 'gopher' } }))).toThrow(
      /protocol must be http or https, got "gopher"/,
    );
    expect(() => loadClientConfig(sources({ configFile: 'missing.json' }))).toThrow(ConfigError);
  });

  it('takes the protocol as `protocol` or `scheme`, in iron.json and in IRON_PROTOCOL / IRON_SCHEME', () => {
    const schemeOnly = sources();
    writeJson(path.join(schemeOnly.cwd, 'iron.json'), { scheme: 'https' });
    expect(loadClientConfig(schemeOnly).protocol).toBe('https');

    const protocolOnly = sources();
    writeJson(path.join(protocolOnly.cwd, 'iron.json'), { protocol: 'https' });
    expect(loadClientConfig(protocolOnly).protocol).toBe('https');

    const both = sources();
    writeJson(path.join(both.cwd, 'iron.json'), { protocol: 'https', scheme: 'https' });
    expect(loadClientConfig(both).protocol).toBe('https');

    expect(loadClientConfig(sources({ env: { IRON_SCHEME: 'https' } })).protocol).toBe('https');
    expect(loadClientConfig(sources({ env: { IRON_PROTOCOL: 'https', IRON_SCHEME: 'https' } })).protocol).toBe('https');
  });

  it('refuses a protocol and a scheme that disagree, naming the source', () => {
    const file = sources();
    writeJson(path.join(file.cwd, 'iron.json'), { protocol: 'http', scheme: 'https' });
    expect(() => loadClientConfig(file)).toThrow(/iron\.json: protocol "http" and scheme "https" disagree/);
    expect(() => loadClientConfig(sources({ env: { IRON_PROTOCOL: 'https', IRON_SCHEME: 'http' } }))).toThrow(
      /IRON_PROTOCOL\/IRON_SCHEME: protocol "https" and scheme "http" disagree/,
    );
    const badScheme = sources();
    writeJson(path.join(badScheme.cwd, 'iron.json'), { scheme: 7 });
    expect(() => loadClientConfig(badScheme)).toThrow(/scheme must be a string/);
    expect(() => loadClientConfig(sources({ env: { IRON_SCHEME: 'ftp' } }))).toThrow(
      /protocol must be http or https, got "ftp"/,
    );
  });

  it('builds the base URL, bracketing IPv6 hosts', () => {
    expect(baseUrlOf({ host: '127.0.0.1', port: 8080, protocol: 'http' })).toBe('http://127.0.0.1:8080');
    expect(baseUrlOf({ host: '::1', port: 443, protocol: 'https' })).toBe('https://[::1]:443');
  });
});

describe('error reasons', () => {
  it('prefers msg, then error.message (functions API), then the text, then the status', () => {
    expect(reasonOf(404, '{"msg":"Queue not found"}')).toBe('Queue not found');
    expect(reasonOf(409, '{"error":{"message":"App already exists"}}')).toBe('App already exists');
    expect(reasonOf(502, 'Bad Gateway\n')).toBe('Bad Gateway');
    expect(reasonOf(500, '')).toBe('HTTP 500');
  });

  it('gives one line for an HTML or long answer from something that is not a Ferrum server', () => {
    const page = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>\n';
    expect(reasonOf(502, page)).toBe('HTTP 502 with a non-JSON answer ("502 Bad Gateway"): is this a Ferrum server?');
    expect(reasonOf(404, 'x'.repeat(500))).toBe('HTTP 404 with a non-JSON answer: is this a Ferrum server?');
  });

  it('names where the address came from when the server cannot be reached', async () => {
    const closed = await freeLoopbackPort();
    const started = sources();
    writeJson(path.join(started.cwd, '.ferrum', 'iron.json'), { host: '127.0.0.1', port: closed, token: 't' });
    const client = new ApiClient(loadClientConfig(started));
    await expect(client.raw('GET', '/version')).rejects.toThrow(
      `cannot reach http://127.0.0.1:${closed} (from .ferrum/iron.json)`,
    );
  });
});
