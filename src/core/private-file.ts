import fs from 'node:fs';

/**
 * Writes `text` to `file` readable and writable by its owner only (0600), whether or not the
 * file was there before: `writeFileSync`'s mode applies only to a file it creates, so a rewrite
 * of one with a wider mode would keep it. Written beside it first and renamed over it, so the
 * contents are never in a file others may read, nor half written.
 */
export function writePrivateFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.rmSync(temporary, { force: true });
  try {
    fs.writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    fs.renameSync(temporary, file);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
