import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { ZipLimits } from '../../../core/config.js';
import { fail } from '../../../core/errors.js';
import { checkLinks, isSymlink, MAX_LINK_TARGET_BYTES, ZipRefusal, type ZipLayout } from './zip-links.js';

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
    if (this.entries > maxEntries) throw new ZipRefusal(`zip has more than ${maxEntries} entries`);
    if (this.unpacked > maxUnpackedBytes)
      throw new ZipRefusal(`zip unpacks to more than ${maxUnpackedBytes} bytes (FERRUM_WORKER_ZIP_MAX_UNPACKED_BYTES)`);
    if (entry.uncompressedSize > maxRatio * Math.max(entry.compressedSize, 1) && entry.uncompressedSize > 1024 * 1024)
      throw new ZipRefusal(
        `zip entry ${entry.fileName} is compressed more than ${maxRatio}:1 (FERRUM_WORKER_ZIP_MAX_RATIO)`,
      );
    if (this.unpacked > maxRatio * Math.max(this.packed, 1) && this.unpacked > 1024 * 1024)
      throw new ZipRefusal(`zip is compressed more than ${maxRatio}:1 (FERRUM_WORKER_ZIP_MAX_RATIO)`);
  }
}

/**
 * Throws a 400 unless `data` is a readable zip archive with safe entry names within the
 * limits (entry count, unpacked size, compression ratio), read from its central directory,
 * whose symbolic links all stay inside the package.
 */
export async function checkZip(data: Buffer, limits: ZipLimits): Promise<void> {
  try {
    checkLinks(await readLayout(data, limits));
  } catch (error) {
    if (error instanceof ZipRefusal) throw fail('code_zip_refused', error.message);
    throw fail('code_zip_invalid', (error as Error).message);
  }
}

function openEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) =>
      error || !stream ? reject(error ?? new Error('no stream')) : resolve(stream),
    );
  });
}

async function readLinkTarget(zip: ZipFile, entry: Entry): Promise<string> {
  if (entry.uncompressedSize > MAX_LINK_TARGET_BYTES)
    throw new ZipRefusal(`zip entry ${entry.fileName} is a symbolic link longer than ${MAX_LINK_TARGET_BYTES} bytes`);
  const chunks: Buffer[] = [];
  for await (const chunk of await openEntry(zip, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An entry's name as the file system reads it, without `.` and empty parts (`a/./b//c/` is
 * `a/b/c`): the link checks count folders, so `a/././esc` must be the `a/esc` it unpacks as.
 */
function normalEntryName(fileName: string): string {
  return fileName
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** Every entry's name and the targets of the symbolic links, with the declared sizes checked. */
async function readLayout(data: Buffer, limits: ZipLimits): Promise<ZipLayout> {
  const declared = new DeclaredSizes(limits);
  const layout: ZipLayout = { names: [], links: new Map() };
  await eachEntry(data, async (zip, entry) => {
    declared.add(entry);
    const name = normalEntryName(entry.fileName);
    if (name === '' && isSymlink(entry))
      throw new ZipRefusal(`zip entry ${entry.fileName} is a symbolic link named nothing`);
    layout.names.push(name);
    if (isSymlink(entry)) layout.links.set(name, await readLinkTarget(zip, entry));
  });
  return layout;
}

/**
 * Unpacks a zip into `dir` (yauzl refuses absolute and `..` entry names), within `limits`:
 * the declared sizes are checked before anything is written, and yauzl fails an entry whose
 * data is longer than declared, so the bytes written never exceed the limits. Symbolic links
 * are checked first and made last, so nothing is ever written through one.
 */
export async function extractZip(data: Buffer, dir: string, limits: ZipLimits): Promise<void> {
  const layout = await readLayout(data, limits);
  checkLinks(layout);
  await eachEntry(data, async (zip, entry) => {
    if (isSymlink(entry)) return;
    const target = path.join(dir, entry.fileName);
    if (entry.fileName.endsWith('/')) {
      await fs.promises.mkdir(target, { recursive: true });
      return;
    }
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const mode = (entry.externalFileAttributes >>> 16) & 0o777;
    await pipeline(await openEntry(zip, entry), fs.createWriteStream(target, { mode: mode || 0o644 }));
  });
  for (const [name, linkTarget] of layout.links) {
    const link = path.join(dir, name);
    await fs.promises.mkdir(path.dirname(link), { recursive: true });
    await fs.promises.symlink(linkTarget, link);
  }
}

/**
 * The text of regular file `name` of the zip (its first `maxBytes` bytes), or undefined when
 * the zip has no such file or cannot be read (the upload's own checks report a bad zip).
 */
export async function readZipText(data: Buffer, name: string, maxBytes: number): Promise<string | undefined> {
  let text: string | undefined;
  try {
    await eachEntry(data, async (zip, entry) => {
      if (text !== undefined || entry.fileName !== name || isSymlink(entry)) return;
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of await openEntry(zip, entry)) {
        chunks.push(chunk as Buffer);
        length += (chunk as Buffer).length;
        if (length >= maxBytes) break;
      }
      text = Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
    });
  } catch {
    return undefined;
  }
  return text;
}
