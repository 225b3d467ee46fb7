/**
 * A person at a (very plain) browser, for in-process sign-in tests: it opens
 * the authorize URL svc hands over, reads each page's form over real HTTP,
 * fills in what a person would (user name, password, one-time code), presses
 * Approve or Deny, keeps the session cookie, and follows the redirects, the
 * last one to svc's loopback server (or stops there and hands back the
 * address, as someone copying it from the address bar would). The real
 * browser test (test/e2e/browser-login.test.ts) drives Chromium instead.
 */

export interface Person {
  readonly user: string;
  readonly password: string;
  /** The one-time code, asked when the page wants one. */
  otp?(): string;
  readonly decision: 'approve' | 'deny';
  /** Follow the last redirect to svc (default), or stop and return its address. */
  readonly follow?: boolean;
}

export interface Visit {
  /** Where the browser ended: the redirect URI with its query. */
  readonly finalUrl: string;
  /** Status of the loopback server's page, when followed. */
  readonly finalStatus?: number;
  /** The titles of the pages seen, in order. */
  readonly pages: string[];
}

interface Form {
  readonly action: string;
  readonly method: string;
  readonly fields: Map<string, string>;
  readonly names: Set<string>;
  readonly buttons: Map<string, string[]>;
}

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? decodeEntities(m[2] ?? m[3] ?? m[4] ?? '') : undefined;
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[e.toLowerCase()] ?? '';
  });
}

/** The first form of a page: its action, hidden values, input names and submit buttons. */
export function parseForm(html: string, base: string): Form | undefined {
  const m = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!m) return undefined;
  const open = /<form\b[^>]*>/i.exec(m[0])![0];
  const fields = new Map<string, string>();
  const names = new Set<string>();
  const buttons = new Map<string, string[]>();
  for (const [tag] of m[1]!.matchAll(/<(input|button)\b[^>]*>/gi)) {
    const name = attr(tag, 'name');
    if (!name) continue;
    const type = (attr(tag, 'type') ?? (tag.toLowerCase().startsWith('<button') ? 'submit' : 'text')).toLowerCase();
    const value = attr(tag, 'value') ?? '';
    if (type === 'submit') buttons.set(name, [...(buttons.get(name) ?? []), value]);
    else if (type === 'hidden') fields.set(name, value);
    else names.add(name);
  }
  return { action: new URL(attr(open, 'action') ?? '', base).href, method: (attr(open, 'method') ?? 'get').toUpperCase(), fields, names, buttons };
}

const title = (html: string): string => /<title>([^<]*)<\/title>/i.exec(html)?.[1]?.trim() ?? '';

/** Goes through the sign-in as `person`; throws when a page has nothing the person could do. */
export async function signInAsPerson(authorizeUrl: string, person: Person): Promise<Visit> {
  const jar = new Map<string, string>();
  const redirectUri = new URL(authorizeUrl).searchParams.get('redirect_uri') ?? '';
  const pages: string[] = [];
  const cookie = (): Record<string, string> => (jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {});
  const remember = (res: Response): void => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      if (eq > 0) jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  };
  let res = await fetch(authorizeUrl, { redirect: 'manual', headers: cookie() });
  for (let step = 0; step < 12; step++) {
    remember(res);
    if (res.status >= 300 && res.status < 400) {
      const location = new URL(res.headers.get('location') ?? '', res.url || authorizeUrl).href;
      await res.arrayBuffer();
      const at = new URL(location);
      if (`${at.origin}${at.pathname}` !== redirectUri) {
        res = await fetch(location, { redirect: 'manual', headers: cookie() });
        continue;
      }
      if (person.follow === false) return { finalUrl: location, pages };
      const final = await fetch(location, { redirect: 'manual' });
      await final.arrayBuffer();
      return { finalUrl: location, finalStatus: final.status, pages };
    }
    const html = await res.text();
    pages.push(title(html));
    const form = parseForm(html, res.url || authorizeUrl);
    if (!form) throw new Error(`page "${title(html)}" (${res.status}) has no form: ${html.slice(0, 300)}`);
    const body = new URLSearchParams([...form.fields]);
    if (form.names.has('username')) body.set('username', person.user);
    if (form.names.has('password')) body.set('password', person.password);
    if (form.names.has('otp')) {
      if (!person.otp) throw new Error('the page asks for a one-time code and the person has none');
      body.set('otp', person.otp());
    }
    const decision = form.buttons.get('decision');
    if (decision?.includes(person.decision)) body.set('decision', person.decision);
    res = await fetch(form.action, {
      method: form.method,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookie() },
      body: body.toString(),
    });
  }
  throw new Error(`the sign-in did not end after 12 pages: ${pages.join(' → ')}`);
}
