import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * The 32-byte key that encrypts secrets at rest: derived from FERRUM_ENCRYPTION_KEY, or else a
 * random key kept in <dataDir>/secret.key (made on first use), shared by the processes of one machine.
 */
export function resolveSecretKey(config: Config): Buffer {
  if (config.worker.secretKey) return createHash('sha256').update(config.worker.secretKey).digest();
  const file = path.join(config.dataDir, 'secret.key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    const key = randomBytes(32);
    try {
      fs.writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      // Another process wrote it first.
      return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    }
  }
}
