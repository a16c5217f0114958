/**
 * What every back-office panel shows its data with: lit-html templates (a table, a state
 * badge, an error line), rendering into the page's containers, the live region, a busy
 * guard for buttons, and dates. lit-html escapes every value and its Trusted Types policy
 * (`lit-html`) is the one the page's CSP allows.
 */
import {html, nothing, render} from 'lit/html.js';

import {byId} from '../dom.js';

export {byId};

const rendered = new WeakSet<Element>();

/** Renders `content` into `container`, replacing the placeholder the page's HTML had there. */
export function show(container: Element, content: unknown): void {
  if (!rendered.has(container)) {
    container.replaceChildren();
    rendered.add(container);
  }
  render(content, container as HTMLElement);
}

/** Runs `work` with `buttons` disabled, so that a second click cannot send it again. */
export async function whileBusy<T>(
  buttons: Iterable<HTMLButtonElement>,
  work: () => Promise<T>,
): Promise<T> {
  const list = [...buttons];
  for (const b of list) b.disabled = true;
  try {
    return await work();
  } finally {
    for (const b of list) b.disabled = false;
  }
}

/** Says `text` in the page's live region. */
export function announce(text: string): void {
  const region = document.getElementById('announce')!;
  region.textContent = '';
  // A fresh text node so that screen readers announce repeats too.
  setTimeout(() => (region.textContent = text), 30);
}

/** An epoch or ISO time as `2027-01-31 09:00:00` (UTC). */
export function when(ms: number | string): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().replace('T', ' ').slice(0, 19);
}

/** `2027-01-31T09:00` (the value of a datetime-local input, read as UTC) → epoch ms. */
export const utcInput = (value: string) => Date.parse(`${value}:00Z`);
export const toInput = (ms: number) => new Date(ms).toISOString().slice(0, 16);

/** The value of the input with id `id` (empty when there is none). */
export const inputValue = (id: string) =>
  (document.getElementById(id) as HTMLInputElement | null)?.value ?? '';

export const badge = (state: string | null | undefined) =>
  html`<span class="badge badge--${state ?? 'none'}">${state ?? '—'}</span>`;

export const mono = (text: string) => html`<span class="mono">${text}</span>`;

/** `3 transactions`, announced politely. */
export const transactionCount = (n: number) =>
  html`<p class="hint" role="status">${n} transaction${n === 1 ? '' : 's'}</p>`;

/** A scrollable, labelled table, or the `empty` line when there is no row. */
export function table(label: string, head: string[], rows: unknown[][], empty: string) {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${label}>
    <table>
      <thead>
        <tr>
          ${head.map((t) => html`<th scope="col">${t}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              ${r.map((cell) => html`<td>${cell}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export const errorMessage = (error: unknown, otherwise = 'Something went wrong.') =>
  error instanceof Error ? error.message : otherwise;

export const errorText = (error: unknown) =>
  html`<p class="error-text" role="alert">${errorMessage(error)}</p>`;

/**
 * Fills the body of the page's table `tableId` (of `columns` columns) with a row per item
 * that `load` answers, the `empty` line when there is none, or the error.
 */
export async function showRows<T>(
  tableId: string,
  columns: number,
  load: () => Promise<T[]>,
  row: (item: T) => unknown,
  empty: string,
): Promise<void> {
  const body = byId(tableId).querySelector('tbody')!;
  const line = (content: unknown, kind: string | typeof nothing) =>
    html`<tr>
      <td colspan=${columns} class=${kind}>${content}</td>
    </tr>`;
  try {
    const items = await load();
    show(body, items.length === 0 ? line(empty, 'empty') : items.map(row));
  } catch (error) {
    show(body, line(errorText(error), nothing));
  }
}
