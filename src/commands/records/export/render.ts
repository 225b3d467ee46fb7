/** What `svc <family> export` says when it is done (the rows go to the file or stdout, written by src/export). */
import type { ResourceFamily } from '../../../catalogue/index.js';

/** The closing line on stderr: how many records went to which file. */
export function exportedNotice(family: ResourceFamily, rows: number, file: string, how?: 'resumed' | 'server-side'): string {
  return `svc: exported ${rows.toLocaleString('en-US')} ${family.name} to ${file}${how ? ` (${how})` : ''}\n`;
}
