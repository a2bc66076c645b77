import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ZipLimits } from '../../src/core/config.js';
import { extractZip } from '../../src/worker/codes/archives/zip.js';

export const PAYLOAD_FILE = 'payload.json';
export const CONFIG_FILE = 'config.json';

export interface TaskFiles {
  dir: string;
  remove(): Promise<void>;
}

/** Writes a file in place of whatever the zip had there, a symbolic link included (never through it). */
async function writeOver(file: string, content: string): Promise<void> {
  await fs.promises.rm(file, { force: true });
  await fs.promises.writeFile(file, content, { mode: 0o644, flag: 'wx' });
}

/** A local folder holding what goes into the task directory: payload, config and the code. */
export async function prepareTaskFiles(
  payload: string,
  config: string | undefined,
  zip: Buffer | null,
  zipLimits: ZipLimits,
): Promise<TaskFiles> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ferrum-task-'));
  try {
    await fs.promises.chmod(dir, 0o755);
    if (zip) await extractZip(zip, dir, zipLimits);
    await writeOver(path.join(dir, PAYLOAD_FILE), payload);
    await writeOver(path.join(dir, CONFIG_FILE), config ?? '');
  } catch (error) {
    await fs.promises.rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => fs.promises.rm(dir, { recursive: true, force: true }) };
}
