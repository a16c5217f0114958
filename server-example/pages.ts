/**
 * How the demo's pages are made and sent: the HTML files of `demo/` (with a few
 * server-filled slots) rendered with `hono/html`, so every value put in a page is escaped
 * unless it is itself `html` — a forgotten escape cannot happen; and the headers of every
 * page from `hono/secure-headers`: a strict Content-Security-Policy — no inline script or
 * style, no eval — with Trusted Types enforced (the pages have no inline code; the
 * elements create only Lit's own `lit-html` policy, and the after-paint loader the
 * `pg-checkout` policy that passes the one URL of the hydrating bundle).
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import type {Context, MiddlewareHandler} from 'hono';
import {html} from 'hono/html';
import {secureHeaders} from 'hono/secure-headers';

/** Markup made by `html` (escaped where it interpolates), possibly still resolving. */
export type Html = ReturnType<typeof html>;

/** What a slot may hold: markup, or text (escaped). */
export type Slot = Html | string;

/**
 * The headers of every page and asset. `gatewayOrigin` is where the hosted-payment form's
 * redirect and the 3-D Secure modal go (`form-action` also applies to redirects after a
 * form post). `reportUrl` is where browsers send the policy's violation reports: named in
 * `Reporting-Endpoints` for `report-to` (Chromium, WebKit) and in `report-uri` (Firefox;
 * the others ignore it when `report-to` is there).
 */
export function pageSecurity(
  gatewayOrigin: string,
  styleSources: readonly string[] = [],
  opts: {reportUrl?: string} = {},
): MiddlewareHandler {
  const reports = opts.reportUrl;
  return secureHeaders({
    ...(reports ? {reportingEndpoints: [{name: 'csp-endpoint', url: reports}]} : {}),
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      // And the hashes of the server-rendered card form's inline styles (card-form-html.ts).
      styleSrc: ["'self'", ...styleSources],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameSrc: ["'self'", gatewayOrigin],
      formAction: ["'self'", gatewayOrigin],
      frameAncestors: ["'self'"],
      baseUri: ["'none'"],
      requireTrustedTypesFor: ["'script'"],
      trustedTypes: ['lit-html', 'pg-checkout'],
      ...(reports ? {reportTo: 'csp-endpoint', reportUri: [reports]} : {}),
    },
    // The result page links back within the shop; other sites get no referrer.
    referrerPolicy: 'same-origin',
    // The example serves plain http on localhost; HSTS belongs to whoever terminates TLS.
    strictTransportSecurity: false,
  });
}

/** A template file cut at its slots: `parts[i]`, then slot `names[i]`, ..., then the last part. */
interface Template {
  parts: string[];
  names: string[];
}

const SLOT = /<!--slot:([a-z-]+)-->/g;

/** HTML files of `demo/`, read on first use; `<!--slot:name-->` marks are filled per request. */
export class PageTemplates {
  readonly #dir: string;
  readonly #cache = new Map<string, Template>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The page `name` with its slots filled: text is escaped, `html` markup is kept. */
  render(name: string, slots: Record<string, Slot> = {}): Html {
    let template = this.#cache.get(name);
    if (template === undefined) {
      const text = readFileSync(path.join(this.#dir, `${name}.html`), 'utf8');
      const pieces = text.split(SLOT);
      template = {
        parts: pieces.filter((_, i) => i % 2 === 0),
        names: pieces.filter((_, i) => i % 2 === 1),
      };
      this.#cache.set(name, template);
    }
    // The file is the template's literal text (trusted like source code); the slots are
    // its interpolations, escaped by `html` unless they are markup already.
    const strings = Object.assign([...template.parts], {raw: template.parts});
    return html(strings, ...template.names.map((slot) => slots[slot] ?? ''));
  }
}

/** Sends a page (never cached: pages show orders and sessions). */
export function sendPage(
  c: Context,
  page: Html,
  status: 200 | 403 | 429 = 200,
  headers: Record<string, string> = {},
): Response | Promise<Response> {
  return c.html(page, status, {'Cache-Control': 'no-store', ...headers});
}

/** The notice shown when `npm run build` has not been run. */
export const MISSING_BUILD_NOTE = html`<p class="notice notice--warn" role="alert">
  The browser bundle is missing: run <code>npm run build</code>, then reload.
</p>`;
