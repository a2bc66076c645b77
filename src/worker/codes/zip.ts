import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { badRequest } from '../../core/errors.js';

export function md5(data: Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

function openZip(data: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error || !zip) reject(error ?? new Error('no zip'));
      else resolve(zip);
    });
  });
}

async function eachEntry(data: Buffer, visit: (zip: ZipFile, entry: Entry) => Promise<void>): Promise<void> {
  const zip = await openZip(data);
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      visit(zip, entry).then(() => zip.readEntry(), reject);
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
}

/** Throws a 400 unless `data` is a readable zip archive with safe entry names. */
export async function checkZip(data: Buffer): Promise<void> {
  try {
    await eachEntry(data, async () => {});
  } catch (error) {
    throw badRequest(`file is not a valid zip archive: ${(error as Error).message}`);
  }
}

function openEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) =>
      error || !stream ? reject(error ?? new Error('no stream')) : resolve(stream),
    );
  });
}

/** Unpacks a zip into `dir` (yauzl refuses absolute and `..` entry names). */
export async function extractZip(data: Buffer, dir: string): Promise<void> {
  await eachEntry(data, async (zip, entry) => {
    const target = path.join(dir, entry.fileName);
    if (entry.fileName.endsWith('/')) {
      await fs.promises.mkdir(target, { recursive: true });
      return;
    }
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const mode = (entry.externalFileAttributes >>> 16) & 0o777;
    await pipeline(await openEntry(zip, entry), fs.createWriteStream(target, { mode: mode || 0o644 }));
  });
}
