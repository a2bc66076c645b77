import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { scaled } from './pace.js';

const run = promisify(execFile);

/** The scripts that send what each language's official clients send (test/redis/compat/clients). */
export const CLIENT_SCRIPTS_DIR = path.resolve(import.meta.dirname, '../redis/compat/clients');

/**
 * Runs a client script in `workDir` (where the iron.json the server wrote was copied) with
 * PACKAGE_ZIP set; its output, or an error holding all it printed.
 */
export async function runClientScript(
  workDir: string,
  packageZip: string,
  command: string,
  args: string[],
): Promise<string> {
  try {
    const env = { ...process.env, PACKAGE_ZIP: packageZip };
    return (await run(command, args, { cwd: workDir, env, timeout: scaled(120_000) })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}${failed.message}`);
  }
}
