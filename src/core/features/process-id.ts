import { randomBytes } from 'node:crypto';
import os from 'node:os';

/** An id for a process's feature advert: its kind, host and pid, and random bits (a restarted pid differs). */
export function newProcessId(kind: string): string {
  return `${kind}-${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
