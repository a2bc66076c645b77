import Table from 'cli-table3';

/** A column of a table: the header and how to read the cell from a row. */
export interface Column {
  header: string;
  field: string;
}

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

/** Aligned columns without borders, one header line. */
export function formatTable(rows: Record<string, unknown>[], columns: Column[]): string {
  const table = new Table({
    head: columns.map((column) => column.header.toUpperCase()),
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push(columns.map((column) => cellText(row[column.field])));
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** Field/value lines of one record. */
export function formatRecord(record: Record<string, unknown>): string {
  const table = new Table({
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const [field, value] of Object.entries(record)) table.push([field, cellText(value)]);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** Where command results go: human tables by default, the server's JSON with `--json`. */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  write(text: string): void {
    this.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  printJson(value: unknown): void {
    this.write(JSON.stringify(value, null, 2));
  }

  /** A list: a table of `columns`, or `raw` as JSON. */
  table(rows: Record<string, unknown>[], columns: Column[], raw: unknown = rows): void {
    if (this.json) return this.printJson(raw);
    if (rows.length === 0) return this.write('(none)');
    this.write(formatTable(rows, columns));
  }

  /** One record as field/value lines, or `raw` as JSON. */
  record(record: Record<string, unknown>, raw: unknown = record): void {
    if (this.json) return this.printJson(raw);
    this.write(formatRecord(record));
  }

  /** The server's `msg` confirming an action, or the whole answer as JSON. */
  confirm(result: { msg: string }): void {
    this.message(result.msg, result);
  }

  /** A confirmation such as the server's `msg`, or `raw` as JSON. */
  message(text: string, raw: unknown): void {
    if (this.json) return this.printJson(raw);
    this.write(text);
  }
}

export function columns(...fields: string[]): Column[] {
  return fields.map((field) => ({ header: field, field }));
}
