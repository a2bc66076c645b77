import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { CliError } from './errors.js';

/** Every regular file under `dir`, as paths relative to it, in a stable order. */
function filesUnder(dir: string, prefix = ''): string[] {
  const entries = fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return filesUnder(dir, relative);
    return entry.isFile() ? [relative] : [];
  });
}

function zipDirectory(dir: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const file of filesUnder(dir)) {
    const full = path.join(dir, file);
    zip.addFile(full, file, { mode: fs.statSync(full).mode });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** The zip to upload for a code package: a zip file as is, or a directory zipped with file modes kept. */
export async function codeArchive(source: string): Promise<Buffer> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch (error) {
    throw new CliError(`cannot read ${source}: ${(error as Error).message}`);
  }
  if (stat.isDirectory()) return zipDirectory(source);
  const bytes = fs.readFileSync(source);
  if (bytes.subarray(0, 2).toString('latin1') !== 'PK')
    throw new CliError(`${source} is not a zip archive or a directory`, 2);
  return bytes;
}
