/** A message: a fixed text, or a template filled from the throw site's arguments. */
export type Template = string | ((...args: never[]) => string);

/** One row of the error table (src/core/errors.ts): the status every caller sees and its message. */
export interface ErrorRow {
  readonly status: number;
  readonly message: Template;
}

export const row = <T extends Template>(status: number, message: T) => ({ status, message }) as const;
