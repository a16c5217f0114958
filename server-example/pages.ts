/**
 * The demo's pages and assets: HTML from `demo/*.html` (with a few server-filled slots),
 * the stylesheet, the page scripts built into `dist/demo/`, and the checkout bundle
 * `dist/cdn/pg-checkout.js`. Every page is served with a strict Content-Security-Policy —
 * no inline script or style, no eval — and Trusted Types enforced: the pages have no
 * inline code, and the elements create only Lit's own `lit-html` policy.
 */
import {createHash} from 'node:crypto';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';

/** Escapes text for HTML element content and attribute values. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The policy of every page. `gatewayOrigin` is where the hosted-payment form's redirect and
 * the 3-D Secure modal go (`form-action` also applies to redirects after a form post).
 */
export function contentSecurityPolicy(gatewayOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `frame-src 'self' ${gatewayOrigin}`,
    `form-action 'self' ${gatewayOrigin}`,
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types lit-html',
  ].join('; ');
}

export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
} as const;

/** The checkout bundle, read once (so a rebuild cannot change it under a running page). */
export interface Bundle {
  code: Buffer;
  /** `sha384-...` of `code`: the `integrity` attribute of its script tag. */
  integrity: string;
}

export function loadBundle(file: string): Bundle | undefined {
  if (!existsSync(file)) return undefined;
  const code = readFileSync(file);
  return {code, integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`};
}

/** HTML files of `demo/`, read on first use; `<!--slot:name-->` marks are filled per request. */
export class PageTemplates {
  readonly #dir: string;
  readonly #cache = new Map<string, string>();
  readonly #reload: boolean;

  constructor(dir: string, opts: {reload?: boolean} = {}) {
    this.#dir = dir;
    this.#reload = opts.reload ?? false;
  }

  render(name: string, slots: Record<string, string> = {}): string {
    let html = this.#reload ? undefined : this.#cache.get(name);
    if (html === undefined) {
      html = readFileSync(path.join(this.#dir, `${name}.html`), 'utf8');
      this.#cache.set(name, html);
    }
    return html.replace(/<!--slot:([a-z-]+)-->/g, (_m, key: string) => slots[key] ?? '');
  }
}

/** The notice shown when `npm run build` has not been run. */
export const MISSING_BUILD_NOTE =
  '<p class="notice notice--warn" role="alert">The browser bundle is missing: run <code>npm run build</code>, then reload.</p>';
