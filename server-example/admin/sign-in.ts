/**
 * The back office's pages: the sign-in form (and its answer: a session, a wrong token, or
 * a throttled address), sign-out, and the back-office page itself, which its script fills
 * from the JSON API. Rendered with `hono/html` through `PageTemplates`.
 */
import {Hono, type Context} from 'hono';
import {html} from 'hono/html';
import {sendPage, type PageTemplates} from '../pages.js';
import {waitText} from '../throttle.js';
import type {AdminAuth} from './auth.js';

const BACK_OFFICE_OFF = html`<p class="notice notice--warn">
  The back office is off: start the server with <code>ADMIN_TOKEN</code> set (at least 16
  characters).
</p>`;

export function signInRoutes(auth: AdminAuth, templates: PageTemplates): Hono {
  const pages = new Hono();

  const loginPage = (
    c: Context,
    message: string,
    status: 200 | 403 | 429 = 200,
    headers: Record<string, string> = {},
  ) =>
    sendPage(
      c,
      templates.render('login', {
        message: message ? html`<p class="notice notice--error" role="alert">${message}</p>` : '',
        form: auth.enabled ? '' : BACK_OFFICE_OFF,
      }),
      status,
      headers,
    );

  pages.get('/login', async function adminLoginPage(c) {
    if ((await auth.access(c)).ok) return c.redirect('/admin', 303);
    return loginPage(c, c.req.query('error') ? 'That token is not right.' : '');
  });

  pages.post('/login', auth.sameOriginForm, async function adminLogin(c) {
    if (!auth.enabled) return loginPage(c, '', 403);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form['token'] === 'string' ? form['token'] : '';
    const checked = await auth.checkToken(c, token, 'form');
    if (checked.retryAfter !== undefined) {
      return loginPage(
        c,
        `Too many wrong tokens from your address: try again in ${waitText(checked.retryAfter)}.`,
        429,
        {'Retry-After': String(checked.retryAfter)},
      );
    }
    if (!checked.ok) return c.redirect('/admin/login?error=1', 303);
    await auth.startSession(c);
    return c.redirect('/admin', 303);
  });

  pages.post('/logout', auth.sameOriginForm, async function adminLogout(c) {
    await auth.endSession(c);
    return c.redirect('/admin/login', 303);
  });

  pages.get('/', async function adminPage(c) {
    if (!(await auth.access(c)).ok) return c.redirect('/admin/login', 303);
    return sendPage(c, templates.render('admin'));
  });

  return pages;
}
