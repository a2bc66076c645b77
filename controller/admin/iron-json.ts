import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { writePrivateFile } from '../../src/core/private-file.js';

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
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'iron.json');
  const contents = { ...settings, scheme: settings.protocol };
  writePrivateFile(file, JSON.stringify(contents, null, 2) + '\n');
  return file;
}

/** The host clients are told to reach: FERRUM_PUBLIC_HOST, else HOST (loopback for a wildcard). */
export function publicHostOf(config: Pick<Config, 'publicHost' | 'host'>): string {
  return config.publicHost ?? (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host);
}

/** Where a server is reached: what iron.json's host, port and protocol say. */
export type ServerAddress = Pick<IronJsonSettings, 'host' | 'port' | 'protocol'>;

export function readJsonObject(file: string): Record<string, unknown> | null {
  try {
    const json: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A later start (perhaps on another PORT): the data folder's iron.json gets the address this
 * server actually serves, keeping its token and project. Its path, or null when there is no
 * iron.json with a token to keep.
 */
export function refreshIronJson(dataDir: string, address: ServerAddress): string | null {
  const current = readJsonObject(path.join(dataDir, 'iron.json'));
  if (typeof current?.token !== 'string' || typeof current.project_id !== 'string') return null;
  return writeIronJson(dataDir, { ...current, token: current.token, project_id: current.project_id, ...address });
}

/** The address the data folder's iron.json names, or null when it has none. */
export function ironJsonAddress(dataDir: string): ServerAddress | null {
  return addressIn(readJsonObject(path.join(dataDir, 'iron.json')));
}

export function addressIn(json: Record<string, unknown> | null): ServerAddress | null {
  if (typeof json?.host !== 'string' || typeof json.port !== 'number') return null;
  const protocol = typeof json.protocol === 'string' ? json.protocol : 'http';
  return { host: json.host, port: json.port, protocol };
}
