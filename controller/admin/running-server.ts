import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../../src/core/private-file.js';
import { addressIn, readJsonObject, type ServerAddress } from './iron-json.js';

/**
 * `server.json` in the data folder: the address of the server running on it now, for the
 * commands run beside it (`ferrum admin token`). Written once it listens, removed when it stops.
 */
const FILE = 'server.json';

export function writeRunningServer(dataDir: string, address: ServerAddress): void {
  const contents = { pid: process.pid, ...address };
  writePrivateFile(path.join(dataDir, FILE), JSON.stringify(contents) + '\n');
}

/** Removes the file if it is this process's. */
export function removeRunningServer(dataDir: string): void {
  const file = path.join(dataDir, FILE);
  if (readJsonObject(file)?.pid === process.pid) fs.rmSync(file, { force: true });
}

/** The address of the server running on the data folder; null when none runs (or it was killed). */
export function runningServerAddress(dataDir: string): ServerAddress | null {
  const json = readJsonObject(path.join(dataDir, FILE));
  if (typeof json?.pid !== 'number' || !processRuns(json.pid)) return null;
  return addressIn(json);
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
