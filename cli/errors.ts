/** A failure the CLI reports as one line on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A server answer other than 2xx: `message` is the server's own reason. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, 1);
  }
}

/**
 * The reason a failed answer gives: `msg` (platform APIs), `error.message` (functions API), or one
 * line of the text — an HTML page or any long answer is from something that is not a Ferrum server.
 */
export function reasonOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { msg?: unknown; error?: { message?: unknown }; message?: unknown };
    const reason = body.msg ?? body.error?.message ?? body.message;
    if (typeof reason === 'string' && reason !== '') return reason;
  } catch {
    // not JSON: fall through to the text
  }
  const trimmed = text.trim();
  if (trimmed === '') return `HTTP ${status}`;
  if (/^<(!doctype|html|\?xml)/i.test(trimmed) || trimmed.includes('\n') || trimmed.length > 200) {
    const title = /<title>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.trim();
    return `HTTP ${status} with a non-JSON answer${title ? ` ("${title}")` : ''}: is this a Ferrum server?`;
  }
  return trimmed;
}
