/**
 * The sandbox's tables, generated from the catalogue: one STRICT table per
 * family and instance (`"<instance>/<family>"`), typed columns, NOT NULL and
 * defaults, indexes where the catalogue says indexed, foreign keys, and named
 * CHECK constraints for enums, bounds, patterns, text rules and cross-field
 * rules. Each constraint name maps to a readable message (see `checkMessage`).
 */
import { families, type ResourceFamily, type ResourceField, type Rule } from '../catalogue/index.js';
import { q, type Db } from './db.js';

/** The quoted table name of a family (or a private table such as `_tokens`) in an instance. */
export function table(instance: string, name: string): string {
  return q(`${instance}/${name}`);
}

/** The hidden revision column: bumped on every write, so ETags change on every write. */
export const REV = '_rev';

function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return `'${text.replace(/'/g, "''")}'`;
}

/** SQLite storage class of a field. */
export function columnType(field: ResourceField): 'INTEGER' | 'REAL' | 'TEXT' {
  switch (field.type) {
    case 'int16':
    case 'int32':
    case 'int64':
    case 'flag':
    case 'binfile':
      return 'INTEGER';
    case 'double':
      return 'REAL';
    default:
      return 'TEXT';
  }
}

const SINGLE_LINE = '^[ \\t\\v]|[ \\t\\v]$|[\\r\\n]';
const TRIMMED = '^[ \\t\\v\\r\\n]|[ \\t\\v\\r\\n]$';

const messages = new Map<string, string>();

/** The readable message for a CHECK constraint name, or undefined. */
export function checkMessage(name: string): string | undefined {
  return messages.get(name);
}

function check(family: string, name: string, expr: string, message: string): string {
  const id = `${family}:${name}`;
  messages.set(id, message);
  return `CONSTRAINT ${q(id)} CHECK (${expr})`;
}

function fieldChecks(family: string, f: ResourceField): string[] {
  const c = q(f.name);
  const out: string[] = [];
  if (f.type === 'flag') out.push(check(family, `${f.name}.flag`, `${c} IN (0, 1)`, `${f.name} must be 0 or 1`));
  if (f.enum) {
    const values = f.enum.map((e) => sqlLiteral(e.value)).join(', ');
    const names = f.enum.map((e) => (e.name ? `${e.value} ${e.name}` : JSON.stringify(e.value))).join(', ');
    out.push(check(family, `${f.name}.enum`, `${c} IN (${values})`, `${f.name} must be one of ${names}`));
  }
  if (f.minimum !== undefined) out.push(check(family, `${f.name}.min`, `${c} >= ${f.minimum}`, `${f.name} must be at least ${f.minimum}`));
  if (f.maximum !== undefined) out.push(check(family, `${f.name}.max`, `${c} <= ${f.maximum}`, `${f.name} must be at most ${f.maximum}`));
  if (f.exclusiveMinimum !== undefined) {
    out.push(check(family, `${f.name}.gt`, `${c} > ${f.exclusiveMinimum}`, `${f.name} must be greater than ${f.exclusiveMinimum}`));
  }
  if (f.minLength !== undefined) {
    out.push(check(family, `${f.name}.minlength`, `length(${c}) >= ${f.minLength}`, `${f.name} must have at least ${f.minLength} character(s)`));
  }
  if (f.maxLength !== undefined) {
    out.push(check(family, `${f.name}.maxlength`, `length(${c}) <= ${f.maxLength}`, `${f.name} must have at most ${f.maxLength} characters`));
  }
  if (f.pattern) {
    out.push(check(family, `${f.name}.pattern`, `svc_regexp(${c}, ${sqlLiteral(f.pattern)}, 0) = 1`, `${f.name} must match ${f.pattern}`));
  }
  if (f.text) {
    const rx = f.text === 'single-line' ? SINGLE_LINE : TRIMMED;
    const what = f.text === 'single-line' ? 'one line without leading or trailing blanks' : 'without leading or trailing blanks';
    out.push(check(family, `${f.name}.text`, `svc_regexp(${c}, ${sqlLiteral(rx)}, 0) = 0`, `${f.name} must be ${what}`));
  }
  if (f.jsonKind) {
    const kinds = f.jsonKind.map(sqlLiteral).join(', ');
    out.push(check(family, `${f.name}.json`, `json_valid(${c}) AND json_type(${c}) IN (${kinds})`, `${f.name} must be JSON (${f.jsonKind.join(' or ')})`));
  }
  return out;
}

function ruleCheck(family: string, rule: Rule, i: number): string | undefined {
  const nonNull = (fields: readonly string[]): string => fields.map((f) => `(${q(f)} IS NOT NULL)`).join(' + ');
  switch (rule.kind) {
    case 'at-most-one':
      return check(family, `rule${i}`, `${nonNull(rule.fields)} <= 1`, `set at most one of ${rule.fields.join(', ')}`);
    case 'exactly-one':
      return check(family, `rule${i}`, `${nonNull(rule.fields)} = 1`, `set exactly one of ${rule.fields.join(', ')}`);
    case 'ordered':
      return check(
        family,
        `rule${i}`,
        `${q(rule.lower)} IS NULL OR ${q(rule.upper)} IS NULL OR ${q(rule.lower)} <= ${q(rule.upper)}`,
        `${rule.lower} must not be after ${rule.upper}`,
      );
    case 'different':
      return check(family, `rule${i}`, `${q(rule.fields[0] ?? '')} IS NOT ${q(rule.fields[1] ?? '')}`, `${rule.fields.join(' and ')} must differ`);
    case 'one-not-empty':
      return check(family, `rule${i}`, rule.fields.map((f) => `${q(f)} <> ''`).join(' OR '), `${rule.fields.join(' or ')} must not be empty`);
    case 'only-for':
      return check(
        family,
        `rule${i}`,
        `${q(rule.field)} = '' OR ${q(rule.when)} IN (${rule.values.join(', ')})`,
        `${rule.field} is allowed only when ${rule.when} is one of ${rule.values.join(', ')}`,
      );
    case 'check':
      return undefined; // PostgreSQL-specific checks are not emulated.
  }
}

function columnSql(instance: string, family: ResourceFamily, f: ResourceField): string {
  if (f.name === 'ID') return `"ID" INTEGER PRIMARY KEY AUTOINCREMENT`;
  const parts = [q(f.name), columnType(f)];
  if (!f.nullable) parts.push('NOT NULL');
  if (f.defaultNow) parts.push('DEFAULT (unixepoch())');
  else if ('default' in f) parts.push(`DEFAULT ${sqlLiteral(f.default)}`);
  if (f.ref?.isFamily && f.ref.field === 'ID') {
    // A parent the record cannot live without blocks deletion (409); other references are cleared.
    parts.push(`REFERENCES ${table(instance, f.ref.family)}("ID") ON DELETE ${f.nullable ? 'SET NULL' : 'RESTRICT'}`);
  }
  return parts.join(' ');
}

/** CREATE statements for one family's table and indexes in an instance. */
export function familySql(instance: string, family: ResourceFamily): string[] {
  const cols = family.fields.map((f) => columnSql(instance, family, f));
  cols.push(`${q(REV)} INTEGER NOT NULL DEFAULT 1`);
  const checks = family.fields.flatMap((f) => fieldChecks(family.name, f));
  family.rules.forEach((r, i) => {
    const c = ruleCheck(family.name, r, i);
    if (c) checks.push(c);
  });
  const t = table(instance, family.name);
  const out = [`CREATE TABLE IF NOT EXISTS ${t} (\n  ${[...cols, ...checks].join(',\n  ')}\n) STRICT`];
  for (const f of family.fields) {
    if (f.indexed && f.name !== 'ID') out.push(`CREATE INDEX IF NOT EXISTS ${q(`${instance}/${family.name}.${f.name}`)} ON ${t}(${q(f.name)})`);
  }
  family.unique.forEach((cols, i) => {
    if (cols.every((c) => family.fields.some((f) => f.name === c))) {
      out.push(`CREATE UNIQUE INDEX IF NOT EXISTS ${q(`${instance}/${family.name}.unique${i}`)} ON ${t}(${cols.map(q).join(', ')})`);
    }
  });
  return out;
}

/**
 * Tokens die with their user and with their application: deactivating either
 * (activity other than 0) or removing it deletes every token issued for it,
 * however the row changes, so reactivating it revives none. The last two
 * statements clear tokens of users and applications deactivated before these
 * triggers existed.
 */
function tokenLifecycleSql(instance: string): string[] {
  const tokens = table(instance, '_tokens');
  const out: string[] = [];
  for (const [family, column] of [['applications', 'application'], ['users', 'user']] as const) {
    const owner = table(instance, family);
    const name = (event: string): string => q(`${instance}/_tokens.${family === 'users' ? 'user-' : ''}${event}`);
    out.push(
      `CREATE TRIGGER IF NOT EXISTS ${name('deactivated')} AFTER UPDATE OF activity ON ${owner} WHEN NEW.activity IS NOT 0 BEGIN DELETE FROM ${tokens} WHERE ${column} = NEW."ID"; END`,
      `CREATE TRIGGER IF NOT EXISTS ${name('removed')} AFTER DELETE ON ${owner} BEGIN DELETE FROM ${tokens} WHERE ${column} = OLD."ID"; END`,
    );
  }
  out.push(
    `DELETE FROM ${tokens} WHERE application IS NOT NULL AND application NOT IN (SELECT "ID" FROM ${table(instance, 'applications')} WHERE activity = 0)`,
    `DELETE FROM ${tokens} WHERE user NOT IN (SELECT "ID" FROM ${table(instance, 'users')} WHERE activity = 0)`,
  );
  return out;
}

/**
 * What the OAuth 2.0 interface keeps dies with its user and its application
 * too: deactivating or removing either deletes its refresh tokens and
 * authorization codes (its access tokens are in `_tokens`, above), and a
 * user's browser sessions. As above, the last statements clear what
 * deactivated users and applications held before these triggers existed.
 */
function oauthLifecycleSql(instance: string): string[] {
  const refresh = table(instance, '_oauthrefresh');
  const codes = table(instance, '_oauthcodes');
  const sessions = table(instance, '_websessions');
  const out: string[] = [];
  for (const [family, column] of [['applications', 'application'], ['users', 'user']] as const) {
    const owner = table(instance, family);
    const name = (event: string): string => q(`${instance}/_oauth.${family === 'users' ? 'user-' : ''}${event}`);
    const clear = (id: string): string =>
      [
        `DELETE FROM ${refresh} WHERE ${column} = ${id};`,
        `DELETE FROM ${codes} WHERE ${column} = ${id};`,
        ...(family === 'users' ? [`DELETE FROM ${sessions} WHERE user = ${id} OR pending = ${id};`] : []),
      ].join(' ');
    out.push(
      `CREATE TRIGGER IF NOT EXISTS ${name('deactivated')} AFTER UPDATE OF activity ON ${owner} WHEN NEW.activity IS NOT 0 BEGIN ${clear('NEW."ID"')} END`,
      `CREATE TRIGGER IF NOT EXISTS ${name('removed')} AFTER DELETE ON ${owner} BEGIN ${clear('OLD."ID"')} END`,
    );
  }
  const active = (family: string): string => `(SELECT "ID" FROM ${table(instance, family)} WHERE activity = 0)`;
  out.push(
    `DELETE FROM ${refresh} WHERE application NOT IN ${active('applications')} OR user NOT IN ${active('users')}`,
    `DELETE FROM ${codes} WHERE application NOT IN ${active('applications')} OR user NOT IN ${active('users')}`,
  );
  return out;
}

/**
 * The OAuth 2.0 interface's tables: browser sessions (the SERVICEID cookie,
 * kept as its SHA-256; `pending` is a two-factor user between password and
 * code), authorization codes (kept after use until they expire, so a reuse is
 * recognised), and refresh tokens, one per grant, with the access token
 * issued beside it. Access tokens themselves live in `_tokens`.
 */
function oauthTablesSql(instance: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_websessions')} (id TEXT PRIMARY KEY, csrf TEXT NOT NULL, user INTEGER, pending INTEGER, pendingexp INTEGER, attempts INTEGER NOT NULL DEFAULT 0, expires INTEGER NOT NULL, created INTEGER NOT NULL) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_oauthcodes')} (code TEXT PRIMARY KEY, application INTEGER NOT NULL, user INTEGER NOT NULL, redirecturi TEXT NOT NULL, challenge TEXT, expires INTEGER NOT NULL, used INTEGER, grantid TEXT) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_oauthrefresh')} (token TEXT PRIMARY KEY, grantid TEXT NOT NULL, application INTEGER NOT NULL, user INTEGER NOT NULL, access TEXT NOT NULL, expdate INTEGER NOT NULL, created INTEGER NOT NULL) STRICT`,
    `CREATE INDEX IF NOT EXISTS ${q(`${instance}/_oauthrefresh.grantid`)} ON ${table(instance, '_oauthrefresh')}(grantid)`,
  ];
}

/** Tables only the sandbox sees: extension data, tags, tokens, secrets, used one-time codes, file contents, OAuth state. */
export function privateSql(instance: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_extdata')} (family TEXT NOT NULL, record INTEGER NOT NULL, name TEXT NOT NULL, value TEXT, PRIMARY KEY (family, record, name)) WITHOUT ROWID, STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_tags')} (family TEXT NOT NULL, record INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (family, record, tag)) WITHOUT ROWID, STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_tokens')} (token TEXT PRIMARY KEY, user INTEGER NOT NULL, application INTEGER, identifier TEXT NOT NULL, expdate INTEGER, created INTEGER NOT NULL) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_passwords')} (user INTEGER PRIMARY KEY, hash TEXT NOT NULL, otpsecret TEXT) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_appsecrets')} (application INTEGER PRIMARY KEY, hash TEXT NOT NULL) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_binfiles')} (binfile INTEGER PRIMARY KEY, content BLOB NOT NULL) STRICT`,
    `CREATE TABLE IF NOT EXISTS ${table(instance, '_otpsteps')} (user INTEGER PRIMARY KEY, step INTEGER NOT NULL) STRICT`,
    ...tokenLifecycleSql(instance),
    ...oauthTablesSql(instance),
    ...oauthLifecycleSql(instance),
  ];
}

/** Instances known to this database. */
export function listInstances(db: Db): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS "_instances" (name TEXT PRIMARY KEY, created INTEGER NOT NULL) STRICT');
  return (db.prepare('SELECT name FROM "_instances" ORDER BY name').all() as { name: string }[]).map((r) => r.name);
}

/**
 * ADD COLUMN for the fields a newer catalogue has that a table made by an
 * older one lacks (such as messages.messageid), so an existing data dir keeps
 * working; the new columns get their type, NOT NULL and default, not checks.
 */
function addedColumnsSql(db: Db, instance: string, family: ResourceFamily): string[] {
  const t = table(instance, family.name);
  const have = new Set((db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name));
  return family.fields.filter((f) => !have.has(f.name)).map((f) => `ALTER TABLE ${t} ADD COLUMN ${columnSql(instance, family, f)}`);
}

/** Creates every table of an instance (idempotent, adding columns a newer catalogue has) and registers it. */
export function createInstance(db: Db, instance: string): void {
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(instance)) throw new Error(`invalid instance name '${instance}'`);
  listInstances(db);
  db.transaction(() => {
    for (const f of families) {
      const [create = '', ...indexes] = familySql(instance, f);
      db.exec(create);
      for (const sql of addedColumnsSql(db, instance, f)) db.exec(sql);
      for (const sql of indexes) db.exec(sql);
    }
    for (const sql of privateSql(instance)) db.exec(sql);
    db.prepare('INSERT OR IGNORE INTO "_instances" (name, created) VALUES (?, unixepoch())').run(instance);
  })();
}

/** Drops every table of an instance. */
export function dropInstance(db: Db, instance: string): void {
  const names = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ?").all(`${instance}/%`) as { name: string }[]).map((r) => r.name);
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const n of names) db.exec(`DROP TABLE IF EXISTS ${q(n)}`);
      db.prepare('DELETE FROM "_instances" WHERE name = ?').run(instance);
    })();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
