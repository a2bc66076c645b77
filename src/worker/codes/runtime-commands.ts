import { ownEntry } from '../../core/own-entry.js';

/**
 * The command of an old-style zip package that names only its file and runtime, as the
 * original service launched each runtime. The command is a shell line run in the unpacked
 * package (the task's arguments are appended to it).
 */

/** `name` as one shell word. */
function shellWord(name: string): string {
  return /^[A-Za-z0-9._/+-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`;
}

/** Runs a file as a program; a zip made without Unix modes leaves it unexecutable, so make it so. */
function executed(file: string): string {
  const path = shellWord(file.startsWith('/') ? file : `./${file}`);
  return `chmod +x ${path} 2>/dev/null; ${path}`;
}

const LAUNCHERS: Record<string, (file: string) => string> = {
  python: (file) => `python ${shellWord(file)}`,
  ruby: (file) => `ruby ${shellWord(file)}`,
  node: (file) => `node ${shellWord(file)}`,
  php: (file) => `php ${shellWord(file)}`,
  sh: (file) => `sh ${shellWord(file)}`,
  // A jar runs with -jar; a source file (Java 11+) or a class name runs as it is.
  java: (file) => (file.endsWith('.jar') ? `java -jar ${shellWord(file)}` : `java ${shellWord(file)}`),
  // A Go source file is compiled and run; anything else is the built program.
  go: (file) => (file.endsWith('.go') ? `go run ${shellWord(file)}` : executed(file)),
  binary: executed,
};

/**
 * `file` launched by `runtime`; a runtime the operator added to the table runs the file with
 * the program of its name, and a package naming no runtime runs the file itself.
 */
export function runtimeCommand(file: string, runtime: string | undefined): string {
  if (!runtime) return executed(file);
  const launch = ownEntry(LAUNCHERS, runtime);
  return launch ? launch(file) : `${shellWord(runtime)} ${shellWord(file)}`;
}
