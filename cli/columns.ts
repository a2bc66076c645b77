/** A column of a table: the header and how to read the cell from a row. */
export interface Column {
  header: string;
  field: string;
}

export function columns(...fields: string[]): Column[] {
  return fields.map((field) => ({ header: field, field }));
}
