import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ZipLimits } from '../../src/core/config.js';
import { extractZip } from '../../src/worker/codes/archives/zip.js';
import type { DockerExecutor, TaskFilesSource } from '../docker-executor.js';

export const PAYLOAD_FILE = 'payload.json';
export const CONFIG_FILE = 'config.json';

export interface TaskFiles {
  dir: string;
  remove(): Promise<void>;
}

/** What a task's folder is filled from, and how to clean up after its run. */
export interface TaskFilesOfRun {
  source: TaskFilesSource;
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

/**
 * The task's files: given to the container as content when it has no zip and the container
 * writes its own task folder (see TaskFilesSource), else prepared in a local folder.
 */
export async function taskFilesOf(
  payload: string,
  config: string | undefined,
  zip: Buffer | null,
  zipLimits: ZipLimits,
  container: { executor: DockerExecutor; diskMb: number },
): Promise<TaskFilesOfRun> {
  const content = { [PAYLOAD_FILE]: payload, [CONFIG_FILE]: config ?? '' };
  if (!zip && (await container.executor.takesContent(container.diskMb, content)))
    return { source: { content }, remove: async () => {} };
  const files = await prepareTaskFiles(payload, config, zip, zipLimits);
  return { source: { dir: files.dir }, remove: () => files.remove() };
}
