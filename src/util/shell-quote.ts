/** A value as a POSIX shell reads it back: bare when it holds only safe characters, else in single quotes. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
