import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../src/core/config.js';

export interface IronJson {
  token: string;
  project_id: string;
  host: string;
  port: number;
  scheme: string;
}

/** Writes the iron.json existing clients read, readable by its owner only (it holds a token). */
export function writeIronJson(dataDir: string, contents: IronJson): string {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'iron.json');
  fs.writeFileSync(file, JSON.stringify(contents, null, 2) + '\n', { mode: 0o600 });
  return file;
}

/** The host clients are told to reach: FERRUM_PUBLIC_HOST, else HOST (loopback for a wildcard). */
export function publicHostOf(config: Pick<Config, 'publicHost' | 'host'>): string {
  return config.publicHost ?? (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host);
}
