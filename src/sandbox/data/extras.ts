/**
 * Extension data (`extdata`) and tags of records, kept beside the family
 * tables: read with `extdata=1` / `tags=1`, written through pseudo fields.
 */
import type { SandboxContext } from '../context.js';
import { table } from '../schema.js';
import type { PseudoFields } from './values.js';

export function readExtdata(ctx: SandboxContext, family: string, id: number): Record<string, unknown> {
  const rows = ctx.db.prepare(`SELECT name, value FROM ${table(ctx.instance, '_extdata')} WHERE family = ? AND record = ? ORDER BY name`).all(family, id) as {
    name: string;
    value: string | null;
  }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.value === null ? null : (JSON.parse(r.value) as unknown)]));
}

export function readTags(ctx: SandboxContext, family: string, id: number): string[] {
  return (ctx.db.prepare(`SELECT tag FROM ${table(ctx.instance, '_tags')} WHERE family = ? AND record = ? ORDER BY tag`).all(family, id) as { tag: string }[]).map(
    (r) => r.tag,
  );
}

/** Applies extdata (null removes a key) and tag changes (replace, add, remove). */
export function writeExtras(ctx: SandboxContext, family: string, id: number, p: PseudoFields): void {
  const ext = table(ctx.instance, '_extdata');
  const tags = table(ctx.instance, '_tags');
  for (const [name, value] of Object.entries(p.extdata ?? {})) {
    if (value === null) ctx.db.prepare(`DELETE FROM ${ext} WHERE family = ? AND record = ? AND name = ?`).run(family, id, name);
    else ctx.db.prepare(`INSERT OR REPLACE INTO ${ext} (family, record, name, value) VALUES (?, ?, ?, ?)`).run(family, id, name, JSON.stringify(value));
  }
  if (p.tags) ctx.db.prepare(`DELETE FROM ${tags} WHERE family = ? AND record = ?`).run(family, id);
  for (const tag of [...(p.tags ?? []), ...(p.addTags ?? [])]) {
    ctx.db.prepare(`INSERT OR IGNORE INTO ${tags} (family, record, tag) VALUES (?, ?, ?)`).run(family, id, tag);
  }
  for (const tag of p.removeTags ?? []) ctx.db.prepare(`DELETE FROM ${tags} WHERE family = ? AND record = ? AND tag = ?`).run(family, id, tag);
}

/** Forgets a deleted record's extension data and tags. */
export function dropExtras(ctx: SandboxContext, family: string, id: number): void {
  ctx.db.prepare(`DELETE FROM ${table(ctx.instance, '_extdata')} WHERE family = ? AND record = ?`).run(family, id);
  ctx.db.prepare(`DELETE FROM ${table(ctx.instance, '_tags')} WHERE family = ? AND record = ?`).run(family, id);
}
