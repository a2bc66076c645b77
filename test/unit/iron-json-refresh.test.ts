import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ironJsonAddress, refreshIronJson, writeIronJson } from '../../controller/admin/iron-json.js';
import {
  removeRunningServer,
  runningServerAddress,
  writeRunningServer,
} from '../../controller/admin/running-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dataDir = useTempDirs('ferrum-iron-');

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

describe("a later start's iron.json", () => {
  it('gets the address served now and keeps the token and project', () => {
    const dir = dataDir();
    writeIronJson(dir, { token: 'tok', project_id: 'p1', host: '127.0.0.1', port: 8080, protocol: 'http' });
    const file = refreshIronJson(dir, { host: 'localhost', port: 47090, protocol: 'https' });
    expect(file).toBe(path.join(dir, 'iron.json'));
    expect(readJson(file!)).toEqual({
      token: 'tok',
      project_id: 'p1',
      host: 'localhost',
      port: 47090,
      protocol: 'https',
      scheme: 'https',
    });
    expect(ironJsonAddress(dir)).toEqual({ host: 'localhost', port: 47090, protocol: 'https' });
  });

  it('is not made up when there is none with a token', () => {
    const dir = dataDir();
    expect(refreshIronJson(dir, { host: '127.0.0.1', port: 1, protocol: 'http' })).toBeNull();
    expect(fs.existsSync(path.join(dir, 'iron.json'))).toBe(false);
    fs.writeFileSync(path.join(dir, 'iron.json'), '{"host":"x"');
    expect(refreshIronJson(dir, { host: '127.0.0.1', port: 1, protocol: 'http' })).toBeNull();
    expect(ironJsonAddress(dir)).toBeNull();
  });
});

describe('the running server file', () => {
  it("names this process's address until it is removed", () => {
    const dir = dataDir();
    expect(runningServerAddress(dir)).toBeNull();
    writeRunningServer(dir, { host: '127.0.0.1', port: 47080, protocol: 'http' });
    expect(runningServerAddress(dir)).toEqual({ host: '127.0.0.1', port: 47080, protocol: 'http' });
    removeRunningServer(dir);
    expect(runningServerAddress(dir)).toBeNull();
  });

  it('is ignored when its process is gone', () => {
    const dir = dataDir();
    // Pid 2^22 + 1 is above Linux's largest pid: no such process.
    const gone = { pid: 4_194_305, host: '127.0.0.1', port: 47080, protocol: 'http' };
    fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify(gone));
    expect(runningServerAddress(dir)).toBeNull();
  });
});
