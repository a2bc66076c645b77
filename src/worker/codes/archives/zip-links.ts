import path from 'node:path';
import type { Entry } from 'yauzl';

/** A zip that is refused, and why (a 400 at upload, an error of the task at its run). */
export class ZipRefusal extends Error {}

/** The longest link target kept (Linux's own limit is 4096). */
export const MAX_LINK_TARGET_BYTES = 1024;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** "Made by" hosts whose external attributes carry a Unix mode: Unix and macOS. */
const UNIX_HOSTS = new Set([3, 19]);

export function isSymlink(entry: Entry): boolean {
  return UNIX_HOSTS.has(entry.versionMadeBy >>> 8) && ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
}

/** What a zip holds: every entry's name (without a trailing /) and its symbolic links' targets. */
export interface ZipLayout {
  names: string[];
  links: Map<string, string>;
}

/** The first folder above `name` that is one of the links. */
function linkOnPath(name: string, links: Map<string, string>): string | undefined {
  const parts = name.split('/');
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    if (links.has(prefix)) return prefix;
  }
  return undefined;
}

/**
 * Follows a link's target from the link's folder one part at a time, as the kernel would: it
 * may not start at /, climb above the package's root, or pass through another link.
 */
function checkTarget(name: string, target: string, links: Map<string, string>): void {
  if (target === '' || target.includes('\0')) throw new ZipRefusal(`zip entry ${name} is a symbolic link to nothing`);
  if (path.posix.isAbsolute(target) || /^[A-Za-z]:|^\\/.test(target))
    throw new ZipRefusal(
      `zip entry ${name} is a symbolic link to the absolute path ${target}: links must stay inside the package`,
    );
  const at = name.split('/').slice(0, -1);
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (at.length === 0) throw new ZipRefusal(`zip entry ${name} is a symbolic link leaving the package (${target})`);
      at.pop();
      continue;
    }
    at.push(part);
    const via = at.join('/');
    if (links.has(via))
      throw new ZipRefusal(
        `zip entry ${name} is a symbolic link through another link (${via}): links must point at the package's own files or folders`,
      );
  }
}

/**
 * Throws a ZipRefusal unless every symbolic link of the zip points inside the package, straight
 * at a file or folder of it, and no entry lies inside a link or shares a link's name.
 */
export function checkLinks({ names, links }: ZipLayout): void {
  if (links.size === 0) return;
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name) && links.has(name)) throw new ZipRefusal(`zip entry ${name} appears twice, once as a link`);
    seen.add(name);
    const through = linkOnPath(name, links);
    if (through) throw new ZipRefusal(`zip entry ${name} lies inside the symbolic link ${through}`);
  }
  for (const [name, target] of links) checkTarget(name, target, links);
}
