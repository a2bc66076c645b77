/**
 * Which language a shell runner script starts: the official clients upload `runtime: sh` with a
 * `__runner__.sh` that sets up the environment and then starts `ruby`, `node`, `java`, ...
 * The stack of a package is the stack of that program (see upload-rules.ts).
 */

/** Program names as scripts call them → the runtime they belong to. */
const PROGRAMS: Record<string, string> = {
  ruby: 'ruby',
  node: 'node',
  nodejs: 'node',
  python: 'python',
  python2: 'python',
  python3: 'python',
  php: 'php',
  java: 'java',
};

// Words that run the command after them (or set its environment) rather than being it.
const PREFIXES = new Set(['exec', 'env', 'nohup', 'time', 'command', 'nice', 'sudo']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The program a command segment runs: its first word that is not a prefix or an assignment, without its path. */
function programOf(segment: string): string | undefined {
  for (const word of segment.trim().split(/\s+/)) {
    const name =
      word
        .replace(/^["']|["']$/g, '')
        .split('/')
        .pop() ?? '';
    if (name === '' || PREFIXES.has(name) || ASSIGNMENT.test(word) || word.startsWith('-')) continue;
    return name;
  }
  return undefined;
}

/**
 * The runtime of the first program among `PROGRAMS` that `script` runs (its `#!` line first,
 * then each command, in order), or undefined when it runs none of them.
 */
export function runtimeStartedBy(script: string): string | undefined {
  const lines = script.split(/\r?\n/);
  const shebang = lines[0]?.startsWith('#!') ? lines[0].slice(2) : '';
  for (const line of [shebang, ...lines]) {
    if (line.trimStart().startsWith('#')) continue;
    for (const segment of line.split(/[;&|()`]+|\$\(/)) {
      const program = programOf(segment);
      if (program && program in PROGRAMS) return PROGRAMS[program];
    }
  }
  return undefined;
}
