/** The errors a sandbox handler throws; the server turns each into its answer. */
import type { Reply } from './http/respond.js';

/**
 * An HTTP error the sandbox answers with: the status and a plain-text body,
 * as the service does ("Error statuses are 400 or greater with a text message body").
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const notFound = (message = 'Not Found'): HttpError => new HttpError(404, message);
export const forbidden = (message: string): HttpError => new HttpError(403, message);
export const conflict = (message: string): HttpError => new HttpError(409, message);

/**
 * An error answered with a prepared reply rather than a line of text: an
 * OAuth 2.0 JSON error (RFC 6749 section 5.2) or an HTML page.
 */
export class ReplyError extends HttpError {
  constructor(readonly reply: Reply) {
    super(reply.status, `HTTP ${reply.status}`, reply.headers);
    this.name = 'ReplyError';
  }
}
