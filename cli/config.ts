import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REDIS_SETTINGS } from '../src/core/config/redis.js';
import { textOf } from '../src/core/config/setting.js';

/** Where and as whom the client commands talk. */
export interface ClientConfig {
  token?: string;
  projectId?: string;
  host: string;
  port: number;
  protocol: string;
  /** Where the host, port and protocol came from, for messages ("IRON_PORT, .ferrum/iron.json"). */
  addressFrom: string;
}

/** Settings as they appear in one source (file, environment or flags), all optional. */
export interface ConfigLayer {
  token?: string;
  projectId?: string;
  host?: string;
  port?: number;
  protocol?: string;
}

export interface ConfigSources {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** `--iron-json <file>`: read after the local files. */
  configFile?: string;
  flags: ConfigLayer;
}

const DEFAULTS = { host: 'localhost', port: 8080, protocol: 'http' };

export class ConfigError extends Error {}

function portFrom(value: unknown, source: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new ConfigError(`${source}: port must be 1-65535, got "${String(value)}"`);
  return port;
}

function stringFrom(value: unknown, field: string, source: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ConfigError(`${source}: ${field} must be a string`);
  return value;
}

/**
 * The protocol from its two names: `protocol` (Python's iron_core) and `scheme` (Node's, Ruby's
 * and Java's). Either alone is enough; both must agree.
 */
function protocolFrom(protocol: string | undefined, scheme: string | undefined, source: string): string | undefined {
  if (protocol !== undefined && scheme !== undefined && protocol !== scheme)
    throw new ConfigError(
      `${source}: protocol "${protocol}" and scheme "${scheme}" disagree; give one, or the same in both`,
    );
  return protocol ?? scheme;
}

/** One iron.json. */
export function readIronJson(file: string, required = false): ConfigLayer {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new ConfigError(`${file} must hold a JSON object`);
  const data = json as Record<string, unknown>;
  return {
    token: stringFrom(data.token, 'token', file),
    projectId: stringFrom(data.project_id, 'project_id', file),
    host: stringFrom(data.host, 'host', file),
    port: portFrom(data.port, file),
    protocol: protocolFrom(stringFrom(data.protocol, 'protocol', file), stringFrom(data.scheme, 'scheme', file), file),
  };
}

export function envLayer(env: NodeJS.ProcessEnv): ConfigLayer {
  return {
    token: env.IRON_TOKEN || undefined,
    projectId: env.IRON_PROJECT_ID || undefined,
    host: env.IRON_HOST || undefined,
    port: portFrom(env.IRON_PORT, 'IRON_PORT'),
    protocol: protocolFrom(env.IRON_PROTOCOL || undefined, env.IRON_SCHEME || undefined, 'IRON_PROTOCOL/IRON_SCHEME'),
  };
}

/** The layers merged, later ones winning, and which layer gave the address (host, port, protocol). */
function merge(layers: Array<[string, ConfigLayer]>): { merged: ConfigLayer; addressFrom: string } {
  const result: ConfigLayer = {};
  const from: Partial<Record<keyof ConfigLayer, string>> = {};
  for (const [name, layer] of layers) {
    for (const [key, value] of Object.entries(layer) as [keyof ConfigLayer, never][]) {
      if (value === undefined) continue;
      result[key] = value;
      from[key] = name;
    }
  }
  const names = new Set([from.host, from.port, from.protocol].filter((name) => name !== undefined));
  return { merged: result, addressFrom: names.size > 0 ? [...names].join(', ') : 'the defaults' };
}

/** A file's name as messages show it: relative to the working directory when inside it. */
function shown(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * The platform's configuration scheme, later layers overriding earlier ones: the global
 * `~/.iron.json`, the `IRON_*` environment variables, the local files (`.ferrum/iron.json` as
 * `ferrum start` writes it, or `$FERRUM_DATA_DIR/iron.json`, then `./iron.json`), the file named
 * by `--iron-json`, then the flags.
 */
export function loadClientConfig(sources: ConfigSources): ClientConfig {
  const dataDir = path.resolve(sources.cwd, textOf(sources.env, REDIS_SETTINGS.FERRUM_DATA_DIR));
  const file = (name: string, required = false): [string, ConfigLayer] => [
    shown(name, sources.cwd),
    readIronJson(name, required),
  ];
  const { merged, addressFrom } = merge([
    ['~/.iron.json', readIronJson(path.join(sources.home, '.iron.json'))],
    ['the IRON_* variables', envLayer(sources.env)],
    file(path.join(dataDir, 'iron.json')),
    file(path.join(sources.cwd, 'iron.json')),
    sources.configFile ? file(path.resolve(sources.cwd, sources.configFile), true) : ['--iron-json', {}],
    ['the flags', sources.flags],
  ]);
  const protocol = merged.protocol ?? DEFAULTS.protocol;
  if (protocol !== 'http' && protocol !== 'https')
    throw new ConfigError(`protocol must be http or https, got "${protocol}"`);
  return { ...DEFAULTS, ...merged, protocol, addressFrom };
}

export function baseUrlOf(config: Pick<ClientConfig, 'host' | 'port' | 'protocol'>): string {
  const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  return `${config.protocol}://${host}:${config.port}`;
}

export function defaultSources(flags: ConfigLayer, configFile?: string): ConfigSources {
  return { cwd: process.cwd(), home: os.homedir(), env: process.env, configFile, flags };
}
