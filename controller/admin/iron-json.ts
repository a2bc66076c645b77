import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';

export interface IronJsonSettings {
  token: string;
  project_id: string;
  host: string;
  port: number;
  /** http or https. */
  protocol: string;
}

/**
 * Writes the iron.json existing clients read, readable by its owner only (it holds a token).
 * The protocol goes under both names the clients use: Python's iron_core reads `protocol`;
 * Node's, Ruby's and Java's read `scheme`. A client that missed its own name would fall back to
 * https on the http port.
 */
export function writeIronJson(dataDir: string, settings: IronJsonSettings): string {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'iron.json');
  const contents = { ...settings, scheme: settings.protocol };
  fs.writeFileSync(file, JSON.stringify(contents, null, 2) + '\n', { mode: 0o600 });
  return file;
}

/** The host clients are told to reach: FERRUM_PUBLIC_HOST, else HOST (loopback for a wildcard). */
export function publicHostOf(config: Pick<Config, 'publicHost' | 'host'>): string {
  return config.publicHost ?? (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host);
}
