/** How results are printed: `table` (the default), `wide` (every field), or the server's answer as `json`/`yaml`. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';

/** The formats `-o` takes. */
export const OUTPUT_FORMATS = ['json', 'yaml', 'wide'] as const;
