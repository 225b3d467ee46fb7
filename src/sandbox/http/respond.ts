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

/** Writes a reply. HEAD answers carry headers only. */
export function send(res: ServerResponse, reply: Reply, head: boolean): void {
  const headers: Record<string, string> = { ...reply.headers };
  let body: string | undefined;
  if (reply.json !== undefined) {
    body = JSON.stringify(reply.json);
    headers['Content-Type'] = 'application/json; charset=utf-8';
  } else if (reply.text !== undefined) {
    body = reply.text;
    headers['Content-Type'] = reply.contentType ?? 'text/plain; charset=utf-8';
  }
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  res.writeHead(reply.status, headers);
  res.end(head || body === undefined ? undefined : body);
}
