import fs from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { CliError } from './errors.js';

/** A commander parser for an integer option in [min, max]; bad values are usage errors. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    }
    return value;
  };
}

/** A commander parser collecting repeated `KEY=VALUE` options into an object. */
export function keyValue(raw: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = raw.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`"${raw}" must be KEY=VALUE`);
  return { ...previous, [raw.slice(0, at)]: raw.slice(at + 1) };
}

export function readFileText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Text given inline, from a file, or from stdin (file name `-`); `fallback` when none is given.
 * Giving both is a usage error.
 */
export async function inlineOrFile(
  names: { inline: string; file: string },
  inline: string | undefined,
  file: string | undefined,
  fallback?: string,
): Promise<string> {
  if (inline !== undefined && file !== undefined)
    throw new CliError(`give ${names.inline} or ${names.file}, not both`, 2);
  if (inline !== undefined) return inline;
  if (file === '-') return readStdin();
  if (file !== undefined) return readFileText(file);
  if (fallback !== undefined) return fallback;
  throw new CliError(`${names.inline} or ${names.file} is required`, 2);
}
