import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat } from './config/http.js';

/** Pretty, coloured lines for a person at a terminal; JSON lines for a log collector. */
export function chooseLogFormat(setting: LogFormat, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (setting !== 'auto') return setting;
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/**
 * The logger of a server process, on stdout. Pretty lines are written synchronously (no worker
 * thread), so the last lines before an exit are not lost.
 */
export function processLogger(level: string, format: 'json' | 'pretty'): Logger {
  if (format === 'json') return pino({ level });
  const stream = pretty({
    colorize: Boolean(process.stdout.isTTY),
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return pino({ level }, stream);
}
