import os from 'node:os';

// Absolute paths under the usual roots of a host's file system (not URL paths such as /1/projects).
const HOST_PATH =
  /(?<![\w./-])\/(?:tmp|var|home|root|usr|etc|opt|proc|sys|srv|run|mnt|media|work|app|snap|nix|lib|lib64|dev|private|Users|Volumes)(?:\/[^\s'"`()<>,;:]*)?/g;

const literalRoots = [process.cwd(), os.tmpdir(), os.homedir()].filter((root) => root.length > 1);

/**
 * An error message as a client may see it: file system paths of the host (where Ferrum runs,
 * its data folder, the Docker engine's folders) are replaced by `<path>`, so an error never
 * tells a stranger how the machine is laid out.
 */
export function withoutHostPaths(message: string): string {
  let text = message;
  for (const root of literalRoots) text = text.split(root).join('<path>');
  return text.replace(HOST_PATH, '<path>');
}
