/**
 * The one error type of Ferrum: a status code and the message sent as {"msg": ...}.
 * Every domain module throws these; the HTTP layer turns them into responses.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (msg: string) => new HttpError(400, msg);
export const unauthorized = (msg = 'Invalid or missing token') => new HttpError(401, msg);
export const forbidden = (msg: string) => new HttpError(403, msg);
export const notFound = (msg: string) => new HttpError(404, msg);
export const methodNotAllowed = (msg: string) => new HttpError(405, msg);
export const notAcceptable = (msg: string) => new HttpError(406, msg);
export const conflict = (msg: string) => new HttpError(409, msg);
export const payloadTooLarge = (msg: string) => new HttpError(413, msg);
export const tooManyRequests = (msg: string) => new HttpError(429, msg);
export const unavailable = (msg: string) => new HttpError(503, msg);

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
