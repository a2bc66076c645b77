import fs from 'node:fs';
import path from 'node:path';

export interface IronJson {
  token: string;
  project_id: string;
  host: string;
  port: number;
  scheme: string;
}

/** Writes the iron.json existing clients read, readable by its owner only (it holds a token). */
export function writeIronJson(dataDir: string, contents: IronJson): string {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'iron.json');
  fs.writeFileSync(file, JSON.stringify(contents, null, 2) + '\n', { mode: 0o600 });
  return file;
}
