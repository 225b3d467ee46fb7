import type { IncomingMessage } from 'node:http';
import { HttpError, badRequest } from '../errors.js';
import { LIMITS } from '../limits.js';
import { parseForm } from './form.js';

/** Largest body the sandbox reads (the service states no limit; this keeps a test from eating memory). */
export const MAX_BODY = LIMITS.bodyBytes;

const tooLarge = (): HttpError =>
  new HttpError(413, `Payload Too Large: the body is over ${MAX_BODY / 1024 / 1024} MiB; the sandbox allows at most ${MAX_BODY} bytes`);

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by a
 * scan of the text, so a hostile body is refused before anything walks it.
 */
export function jsonNestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('malformed body: it is not valid UTF-8 text; send the body encoded as UTF-8');
  }
}

function parseJson(text: string): unknown {
  if (jsonNestsDeeper(text, LIMITS.bodyDepth)) {
    throw badRequest(`the JSON body nests arrays or objects deeper than ${LIMITS.bodyDepth} levels; the sandbox allows at most ${LIMITS.bodyDepth}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`malformed JSON body: ${(err as Error).message.slice(0, 200).replace(/\s+/g, ' ')}`);
  }
}

/**
 * Reads and parses a JSON or form-encoded body; undefined when the body is
 * empty. 413 over the size limit, 400 for text that is not UTF-8, malformed
 * JSON or nesting over the depth limit, 415 for another content type.
 */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw tooLarge();
    chunks.push(chunk);
  }
  const text = decodeUtf8(Buffer.concat(chunks));
  if (text.trim() === '') return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  if (type === 'application/json' || type === '' || type.endsWith('+json')) return parseJson(text);
  throw new HttpError(415, `unsupported content type '${type.slice(0, 100)}'; send application/json or application/x-www-form-urlencoded`);
}
