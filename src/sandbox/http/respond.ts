import type { ServerResponse } from 'node:http';

/** A handler's answer; the server writes it. */
export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON value, text (for text/csv or text/plain) or nothing. */
  readonly json?: unknown;
  readonly text?: string;
  readonly contentType?: string;
}

export const json = (value: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({ status, json: value, headers });
export const empty = (status: number, headers: Record<string, string> = {}): Reply => ({ status, headers });
export const text = (body: string, status: number, contentType = 'text/plain; charset=utf-8', headers: Record<string, string> = {}): Reply => ({
  status,
  text: body,
  contentType,
  headers,
});

/**
 * A reply's body as bytes and its content type: JSON text, or the text as
 * given. Encoded once: its length is the Content-Length, and the socket takes
 * the bytes as they are. (The export benchmark times this with the handler.)
 */
export function encodeBody(reply: Reply): { body: Buffer; contentType: string } | undefined {
  if (reply.json !== undefined) return { body: Buffer.from(JSON.stringify(reply.json)), contentType: 'application/json; charset=utf-8' };
  if (reply.text !== undefined) return { body: Buffer.from(reply.text), contentType: reply.contentType ?? 'text/plain; charset=utf-8' };
  return undefined;
}

/** Writes a reply. HEAD answers carry headers only. */
export function send(res: ServerResponse, reply: Reply, head: boolean): void {
  const headers: Record<string, string> = { ...reply.headers };
  const encoded = encodeBody(reply);
  if (encoded) {
    headers['Content-Type'] = encoded.contentType;
    headers['Content-Length'] = String(encoded.body.length);
  }
  res.writeHead(reply.status, headers);
  res.end(head || !encoded ? undefined : encoded.body);
}
