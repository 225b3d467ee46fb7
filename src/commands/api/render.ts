/** What `svc api` prints besides the body: the response head (-i) and the request it would send (--dry-run). */
import { STATUS_CODES } from 'node:http';
import { redactHeaders, redactUrl } from '../../http/redact.js';

/** `content-type` → `Content-Type`. */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => `${sep}${c.toUpperCase()}`);
}

/** The status line and headers as gh api -i prints them (CRLF lines, a blank line after). */
export function renderHead(status: number, headers: Readonly<Record<string, string | string[] | undefined>>): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(headers)) {
    for (const one of value === undefined ? [] : Array.isArray(value) ? value : [value]) lines.push(`${headerName(name)}: ${one}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * The request as it would go out: method and URL, headers (credentials and
 * secret query parameters redacted), a blank line, the body.
 */
export function renderDryRun(method: string, url: string, headers: Readonly<Record<string, string>>, body: string | undefined): string {
  const head = [`${method} ${redactUrl(url)}`, ...redactHeaders(headers)].join('\n');
  if (body === undefined || body === '') return `${head}\n`;
  return `${head}\n\n${body}${body.endsWith('\n') ? '' : '\n'}`;
}
