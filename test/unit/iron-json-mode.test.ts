import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refreshIronJson, writeIronJson } from '../../controller/admin/iron-json.js';
import { writeRunningServer } from '../../controller/admin/running-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// The data folder's iron.json holds a token: each write and each later start's rewrite leaves it
// readable by its owner only, even when the file was there before with a wider mode (written by
// hand, copied, or by a umask that let others read it).

const dataDir = useTempDirs('ferrum-iron-mode-');

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const settings = { token: 'secret-token', project_id: 'p1', host: '127.0.0.1', port: 8080, protocol: 'http' };

describe.skipIf(process.platform === 'win32')('iron.json file mode', () => {
  it('is 0600 when written anew', () => {
    expect(modeOf(writeIronJson(dataDir(), settings))).toBe(0o600);
  });

  it('becomes 0600 when a world-readable one is rewritten (a later start), and no copy is left beside it', () => {
    const dir = dataDir();
    const file = path.join(dir, 'iron.json');
    fs.writeFileSync(file, JSON.stringify(settings), { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(refreshIronJson(dir, { host: 'localhost', port: 9090, protocol: 'http' })).toBe(file);
    expect(modeOf(file)).toBe(0o600);
    writeIronJson(dir, settings);
    expect(modeOf(file)).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['iron.json']);
  });

  it('server.json, beside it, too', () => {
    const dir = dataDir();
    const file = path.join(dir, 'server.json');
    fs.writeFileSync(file, '{}', { mode: 0o666 });
    fs.chmodSync(file, 0o666);
    writeRunningServer(dir, { host: '127.0.0.1', port: 1, protocol: 'http' });
    expect(modeOf(file)).toBe(0o600);
  });
});
