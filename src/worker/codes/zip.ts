import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { ZipLimits } from '../../core/config.js';
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

/** A zip over one of the limits (a 400 naming it). */
class ZipLimitError extends Error {}

/** Checks sizes as the central directory declares them, before anything is unpacked. */
class DeclaredSizes {
  private entries = 0;
  private packed = 0;
  private unpacked = 0;

  constructor(private readonly limits: ZipLimits) {}

  add(entry: Entry): void {
    const { maxEntries, maxUnpackedBytes, maxRatio } = this.limits;
    this.entries += 1;
    this.packed += entry.compressedSize;
    this.unpacked += entry.uncompressedSize;
    if (this.entries > maxEntries) throw new ZipLimitError(`zip has more than ${maxEntries} entries`);
    if (this.unpacked > maxUnpackedBytes)
      throw new ZipLimitError(
        `zip unpacks to more than ${maxUnpackedBytes} bytes (FERRUM_WORKER_ZIP_MAX_UNPACKED_BYTES)`,
      );
    if (entry.uncompressedSize > maxRatio * Math.max(entry.compressedSize, 1) && entry.uncompressedSize > 1024 * 1024)
      throw new ZipLimitError(
        `zip entry ${entry.fileName} is compressed more than ${maxRatio}:1 (FERRUM_WORKER_ZIP_MAX_RATIO)`,
      );
    if (this.unpacked > maxRatio * Math.max(this.packed, 1) && this.unpacked > 1024 * 1024)
      throw new ZipLimitError(`zip is compressed more than ${maxRatio}:1 (FERRUM_WORKER_ZIP_MAX_RATIO)`);
  }
}

/**
 * Throws a 400 unless `data` is a readable zip archive with safe entry names within the
 * limits (entry count, unpacked size, compression ratio), read from its central directory.
 */
export async function checkZip(data: Buffer, limits: ZipLimits): Promise<void> {
  const declared = new DeclaredSizes(limits);
  try {
    await eachEntry(data, async (_zip, entry) => declared.add(entry));
  } catch (error) {
    if (error instanceof ZipLimitError) throw badRequest(error.message);
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

/**
 * Unpacks a zip into `dir` (yauzl refuses absolute and `..` entry names), within `limits`:
 * the declared sizes are checked entry by entry, and yauzl fails an entry whose data is
 * longer than declared, so the bytes written never exceed the limits.
 */
export async function extractZip(data: Buffer, dir: string, limits: ZipLimits): Promise<void> {
  const declared = new DeclaredSizes(limits);
  await eachEntry(data, async (zip, entry) => {
    declared.add(entry);
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
