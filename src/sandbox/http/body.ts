import type { IncomingMessage } from 'node:http';
import { HttpError, badRequest } from '../errors.js';
import { parseForm } from './form.js';

/** Largest body the sandbox reads (the service states no limit; this keeps a test from eating memory). */
export const MAX_BODY = 32 * 1024 * 1024;

/** Reads and parses a JSON or form-encoded body; undefined when the body is empty. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, 'Payload Too Large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  if (type === 'application/json' || type === '' || type.endsWith('+json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw badRequest(`malformed JSON body: ${(err as Error).message}`);
    }
  }
  throw new HttpError(415, `unsupported content type '${type}'; send application/json or application/x-www-form-urlencoded`);
}
