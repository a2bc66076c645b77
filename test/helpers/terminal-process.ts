import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { builtFerrum } from './built-checkout.js';
import { eventually } from './eventually.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * `ferrum start` at a terminal: run by util-linux `script` in a pseudo-terminal of its own, so
 * its stdin and stdout are a TTY, and a Ctrl-C typed there (`ctrlC`) goes, through the
 * terminal's line discipline, as SIGINT to the whole foreground process group, as at a shell.
 */
export interface TerminalProcess {
  child: ChildProcess;
  /** Every line written to the terminal so far, colours and carriage returns taken out. */
  lines: string[];
  exited: Promise<number>;
  ctrlC(): void;
  /** Waits for a line matching `pattern` and returns it. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

export async function startInTerminal(env: Record<string, string>): Promise<TerminalProcess> {
  const command = `exec '${process.execPath}' '${builtFerrum()}' start`;
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', FERRUM_WORKERS: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).replace(ANSI, '').split('\n');
    rest = parts.pop()!;
    for (const line of parts) lines.push(line.replace(/\r$/, ''));
  });
  child.stderr!.on('data', (chunk: Buffer) => lines.push(`stderr: ${chunk.toString().trim()}`));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  const terminal: TerminalProcess = {
    child,
    lines,
    exited,
    ctrlC: () => child.stdin!.write('\x03'),
    waitForLine: (pattern, timeoutMs = 10_000) =>
      eventually(() => lines.find((line) => pattern.test(line)), timeoutMs, `a line matching ${pattern}`),
  };
  let started = false;
  await Promise.race([
    terminal.waitForLine(/^Ferrum listening on /, 90_000),
    exited.then((code) => {
      if (!started) throw new Error(`ferrum start exited (${code}) while starting:\n${lines.join('\n')}`);
    }),
  ]);
  started = true;
  return terminal;
}

/** The value after `name:` in the bootstrap lines a first start prints. */
export function printedValue(lines: string[], name: string): string {
  const pattern = new RegExp(`^\\s+${name}:\\s+(\\S+)`);
  const value = lines.map((line) => pattern.exec(line)?.[1]).find((found) => found !== undefined);
  if (!value) throw new Error(`no ${name} printed:\n${lines.join('\n')}`);
  return value;
}
