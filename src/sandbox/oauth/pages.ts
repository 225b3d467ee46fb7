/**
 * The pages of the authorization flow, rendered on the server as plain HTML
 * (a little inline CSS, no JavaScript): sign-in, one-time code, consent, and
 * error pages. Every value that came from a request or the database passes
 * through escapeHtml. Each form posts back to /authorize with the
 * authorization request in hidden fields, its step and its CSRF token;
 * the field names (username, password, otp, decision) are stable for tests.
 */
import { text, type Reply } from '../http/respond.js';

/** Escapes text for HTML content and double- or single-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Headers of every page: not cached, not framed, no script, no referrer. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:24rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin:1.2rem .5rem 0 0;padding:.5rem 1.2rem;font-size:1rem;cursor:pointer}
.message{background:#fdecea;color:#8a1c12;padding:.6rem;border-radius:4px}.muted{color:#5b6270;font-size:.9rem}`;

/** A whole page: title and body (already escaped). */
function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** An HTML answer with the page headers (and any others, such as Set-Cookie). */
export function htmlReply(status: number, html: string, headers: Readonly<Record<string, string>> = {}): Reply {
  return text(html, status, 'text/html; charset=utf-8', { ...PAGE_HEADERS, ...headers });
}

/** What every form of the flow carries: the authorization request, the form's step and its CSRF token. */
export interface FormContext {
  /** The action URL (the /authorize path of the instance). */
  readonly action: string;
  /** The authorization request's parameters, sent back in hidden fields. */
  readonly request: ReadonlyMap<string, string>;
  readonly csrf: string;
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

function form(ctx: FormContext, step: string, fields: string): string {
  const carried = [...ctx.request].map(([k, v]) => hidden(k, v)).join('\n');
  return `<form id="${step}-form" method="post" action="${escapeHtml(ctx.action)}">
${carried}
${hidden('step', step)}
${hidden('csrf_token', ctx.csrf)}
${fields}
</form>`;
}

function message(text: string | undefined): string {
  return text ? `<p class="message" id="message" role="alert">${escapeHtml(text)}</p>\n` : '';
}

/** The sign-in page: user name (or e-mail) and password. */
export function signInPage(ctx: FormContext, appName: string, opts: { message?: string; username?: string } = {}): string {
  return layout(
    'Sign in',
    `<p>Sign in to continue to <strong>${escapeHtml(appName)}</strong>.</p>
${message(opts.message)}${form(
      ctx,
      'signin',
      `<label for="username">User name or e-mail</label>
<input type="text" id="username" name="username" autocomplete="username" required value="${escapeHtml(opts.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" id="signin">Sign in</button>`,
    )}`,
  );
}

/** The one-time code page of a two-factor user. */
export function otpPage(ctx: FormContext, opts: { message?: string } = {}): string {
  return layout(
    'Two-factor authentication',
    `<p>Enter the 6-digit code from your authenticator app.</p>
${message(opts.message)}${form(
      ctx,
      'otp',
      `<label for="otp">One-time code</label>
<input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="6" required>
<button type="submit" id="verify">Verify</button>`,
    )}`,
  );
}

/** The consent page: the application asks the signed-in user for access. */
export function consentPage(ctx: FormContext, appName: string, user: { name: string; email: string }): string {
  return layout(
    'Authorize access',
    `<p><strong id="application">${escapeHtml(appName)}</strong> asks for access to the data of
<strong id="user">${escapeHtml(user.name)}</strong>${user.email ? ` <span class="muted">(${escapeHtml(user.email)})</span>` : ''}.</p>
<p class="muted">It will be able to read and change records as you can.</p>
${form(
  ctx,
  'consent',
  `<button type="submit" id="approve" name="decision" value="approve">Approve</button>
<button type="submit" id="deny" name="decision" value="deny">Deny</button>`,
)}`,
  );
}

/** An error page; `restart` is a link back to the start of the flow, when there is a safe one. */
export function errorPage(title: string, text: string, restart?: string): string {
  const link = restart ? `\n<p><a id="restart" href="${escapeHtml(restart)}">Start again</a></p>` : '';
  return layout(title, `<p class="message" id="message" role="alert">${escapeHtml(text)}</p>${link}`);
}
