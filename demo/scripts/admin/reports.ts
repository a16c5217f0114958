/**
 * The reports panels: the gateway's transactions over a period, and a register (a report
 * the gateway generates: started, then asked for until it is ready, then shown and offered
 * for download).
 */
import {html, render} from 'lit/html.js';
import {sleep} from '../../../src/internal/async-controller.js';
import {getRegister, periodTransactions, registerUrl, startRegister, type Config} from './api.js';
import {
  badge,
  byId,
  errorText,
  mono,
  show,
  table,
  toInput,
  transactionCount,
  utcInput,
  when,
  whileBusy,
} from './ui.js';

const dateValue = (id: string) => utcInput(byId<HTMLInputElement>(id).value);

async function loadPeriod(): Promise<void> {
  const out = byId('period-result');
  show(out, html`<p class="hint">Loading…</p>`);
  try {
    const {transactions} = await periodTransactions(
      dateValue('period-start'),
      dateValue('period-end'),
    );
    show(
      out,
      html`${transactionCount(transactions.length)}
      ${table(
        'Transactions over the period',
        ['Order', 'Method', 'Amount', 'Status', 'Time'],
        transactions.map((t) => [
          mono(t.orderId),
          t.method,
          `${t.amount} ${t.currency}`,
          badge(t.status),
          t.dateTime === '' ? 'pending' : when(Number(t.dateTime)),
        ]),
        'No transaction in this period.',
      )}`,
    );
  } catch (error) {
    show(out, errorText(error));
  }
}

const checkboxes = (name: string, values: string[], checked: string[] = []) =>
  values.map(
    (v) =>
      html`<label
        ><input
          type="checkbox"
          name=${name}
          value=${v}
          ?checked=${checked.includes(v)}
        />${v}</label
      >`,
  );

const checkedValues = (form: HTMLFormElement, name: string) =>
  [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) => i.value);

async function generateRegister(form: HTMLFormElement): Promise<void> {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const status = byId('register-status');
  const out = byId('register-result');
  const fields = checkedValues(form, 'field');
  button.disabled = true;
  show(out, '');
  try {
    const started = await startRegister({
      start: dateValue('register-start'),
      end: dateValue('register-end'),
      statuses: checkedValues(form, 'status'),
      methods: checkedValues(form, 'method'),
      fields,
    });
    status.textContent = `Register ${started.reportId} started (${started.count} records): generating…`;
    const never = new AbortController().signal;
    for (let attempt = 1; ; attempt++) {
      const result = await getRegister(started.reportId);
      if (result.ready) {
        const records = result.records ?? [];
        const columns = fields.length > 0 ? fields : Object.keys(records[0] ?? {});
        status.textContent = `Register ready: ${records.length} record${records.length === 1 ? '' : 's'}.`;
        show(
          out,
          html`<p>
              <a
                class="button button--small button--secondary"
                href="${registerUrl(started.reportId)}?download=1"
                download="register-${started.reportId}.json"
                >Download JSON</a
              >
            </p>
            ${table(
              'Register records',
              columns,
              records.map((r) =>
                columns.map((c) => (r[c] === undefined || r[c] === null ? '' : String(r[c]))),
              ),
              'The register is empty.',
            )}`,
        );
        break;
      }
      status.textContent = `Not ready yet (check ${attempt}): ${result.message ?? 'the gateway is generating the register'}`;
      await sleep(Math.min(4000, 500 * attempt), never);
    }
  } catch (error) {
    status.textContent = '';
    show(out, errorText(error));
  } finally {
    button.disabled = false;
  }
}

/** Fills the forms' defaults from the server's config and wires them. */
export function setUpReports(config: Config): void {
  const now = Date.parse(config.gatewayNow);
  const dayMs = 24 * 3600_000;
  for (const id of ['period-start', 'register-start'])
    byId<HTMLInputElement>(id).value = toInput(now - 7 * dayMs);
  for (const id of ['period-end', 'register-end'])
    byId<HTMLInputElement>(id).value = toInput(now + dayMs);
  // After each fieldset's legend (lit-html renders after what a container holds).
  render(checkboxes('status', config.statuses), byId('register-statuses'));
  render(checkboxes('method', config.registerMethods), byId('register-methods'));
  render(
    checkboxes('field', config.registerFields, [
      'orderId',
      'method',
      'amount',
      'currency',
      'status',
      'dateTime',
    ]),
    byId('register-fields'),
  );
  const period = byId<HTMLFormElement>('period-form');
  period.addEventListener('submit', (e) => {
    e.preventDefault();
    void whileBusy(period.querySelectorAll<HTMLButtonElement>('button[type="submit"]'), loadPeriod);
  });
  const register = byId<HTMLFormElement>('register-form');
  register.addEventListener('submit', (e) => {
    e.preventDefault();
    void generateRegister(register);
  });
}
