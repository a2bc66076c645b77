import { createRequire } from 'node:module';
import Table from 'cli-table3';
import type { Column } from './columns.js';
import type { OutputFormat } from './output-formats.js';

const PLAIN_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

export function cellText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (Array.isArray(value) && value.length === 0) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function plainTable(head: string[] | undefined, rows: string[][]): string {
  const table = new Table({
    ...(head ? { head } : {}),
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  table.push(...rows);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** Aligned columns without borders, one header line. */
export function formatTable(rows: Record<string, unknown>[], columns: Column[]): string {
  return plainTable(
    columns.map((column) => column.header.toUpperCase()),
    rows.map((row) => columns.map((column) => cellText(row[column.field]))),
  );
}

/** Field/value lines of one record. */
export function formatRecord(record: Record<string, unknown>): string {
  return plainTable(
    undefined,
    Object.entries(record).map(([field, value]) => [field, cellText(value)]),
  );
}

/** Every field any row has, in the order they first appear: the columns of `-o wide`. */
export function everyColumn(rows: Record<string, unknown>[]): Column[] {
  const fields = new Set<string>();
  for (const row of rows) for (const field of Object.keys(row)) fields.add(field);
  return [...fields].map((field) => ({ header: field, field }));
}

/** YAML text of plain JSON data, with the well-kept `yaml` library, loaded only when asked for. */
export function yamlOf(value: unknown): string {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.stringify(value, { lineWidth: 0 });
}

/** Where command results go: human tables by default, the server's answer as JSON or YAML on request. */
export class Output {
  constructor(
    readonly format: OutputFormat,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  /** Whether the server's answer is printed as data (JSON or YAML) rather than for people. */
  get structured(): boolean {
    return this.format === 'json' || this.format === 'yaml';
  }

  write(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** `value` as JSON or YAML, whichever was asked for (JSON when neither). */
  printData(value: unknown): void {
    this.write(this.format === 'yaml' ? yamlOf(value) : JSON.stringify(value, null, 2));
  }

  /** A list: a table of `columns` (of every field with `wide`), or `raw` as data. */
  table(rows: Record<string, unknown>[], columns: Column[], raw: unknown = rows): void {
    if (this.structured) return this.printData(raw);
    if (rows.length === 0) return this.write('(none)');
    this.write(formatTable(rows, this.format === 'wide' ? everyColumn(rows) : columns));
  }

  /** One record as field/value lines, or `raw` as data. */
  record(record: Record<string, unknown>, raw: unknown = record): void {
    if (this.structured) return this.printData(raw);
    this.write(formatRecord(record));
  }

  /** The server's `msg` confirming an action, or the whole answer as data. */
  confirm(result: { msg?: string }): void {
    this.message(result.msg ?? '', result);
  }

  /** A confirmation such as the server's `msg`, or `raw` as data. */
  message(text: string, raw: unknown): void {
    if (this.structured) return this.printData(raw);
    this.write(text);
  }
}
