/**
 * Payment request validation time: how long `DirectPaymentRequest` takes to check one
 * realistic direct payment (full card data and browser fingerprint), in microseconds per
 * request, as p50 / p99 / mean over many timed iterations after a warm-up. Also the same
 * with `init_recurring` (defaults filled in) and a refused request (the error path).
 */
import {DirectPaymentRequest} from '../src/server/gateway/index.js';

const POS_ID = '6b0f7d1e-3a52-4c1b-9e7d-2f4a8c9b1d03';

function request(): Record<string, unknown> {
  return {
    pos_id: POS_ID,
    mode: 'direct',
    method: 'purchase',
    amount: 1040.5,
    currency: 'UAH',
    description: 'Order #2026-000123: 2 items',
    order_id: 'order-2026-000123',
    order_3ds_bypass: 'supported',
    cc_number: '4242424242424242',
    exp_month: 12,
    exp_year: new Date().getUTCFullYear() + 3,
    card_cvv: '123',
    customer_id: 'customer-42',
    customer_fname: 'Taras',
    customer_lname: 'Shevchenko',
    customer_email: 'taras@example.com',
    customer_phone: '+380501234567',
    customer_ip: '203.0.113.7',
    customer_country: 'UA',
    server_url: 'https://shop.example/gateway/webhooks',
    result_url: 'https://shop.example/checkout/return',
    payload: '{"cart":"42"}',
    browser_fingerprint: {
      browserColorDepth: '24',
      browserScreenHeight: '1080',
      browserScreenWidth: '1920',
      browserJavaEnabled: 'false',
      browserLanguage: 'uk-UA',
      browserTimeZone: 'Europe/Kyiv',
      browserTimeZoneOffset: '-120',
      browserAcceptHeader: 'text/html,application/xhtml+xml',
      browserIpAddress: '203.0.113.7',
      browserUserAgent:
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/130 Safari/537.36',
    },
  };
}

/** Times `fn` once per iteration; microseconds at p50, p99 and the mean. */
function measure(fn: () => unknown, iterations: number) {
  for (let i = 0; i < 2000; i++) fn();
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    fn();
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) =>
    Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2));
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {p50_us: at(0.5), p99_us: at(0.99), mean_us: Number(mean.toFixed(2)), iterations};
}

export default async function validationBench() {
  const valid = request();
  const recurring = {...request(), init_recurring: {interval_unit: 'month', interval_count: 1}};
  const refused = {...request(), amount: 0.1 + 0.2, cc_number: '4242424242424241'};
  if (!DirectPaymentRequest.safeParse(valid).success)
    throw new Error('the benchmark request is not valid');
  if (!DirectPaymentRequest.safeParse(recurring).success)
    throw new Error('the recurring request is not valid');
  if (DirectPaymentRequest.safeParse(refused).success)
    throw new Error('the refused request passed');
  return [
    {case: 'direct payment', ...measure(() => DirectPaymentRequest.safeParse(valid), 20_000)},
    {
      case: 'direct payment with init_recurring',
      ...measure(() => DirectPaymentRequest.safeParse(recurring), 20_000),
    },
    {
      case: 'refused direct payment',
      ...measure(() => DirectPaymentRequest.safeParse(refused), 10_000),
    },
  ];
}
