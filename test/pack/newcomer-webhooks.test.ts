/**
 * docs/guides/webhooks.md's "Receiving them yourself", done as a newcomer does it
 * (test/pack/newcomer.ts): from an empty folder, the first payment's steps 1 to 4 (where the
 * guide says it starts), the receiver and its test as written, `tsc --init`'s type check
 * (and `skipLibCheck: false`), and the guide's test run with its command. Then, the test's
 * own check, the receiver as written answers a webhook the sandbox signed and sent for a
 * real payment: taken once, a repeat changes nothing, the same data with a signature made
 * with another secret is refused.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {
  doSteps,
  firstPaymentProject,
  guideSteps,
  Newcomer,
  stepsBefore,
  typeCheck,
} from './newcomer.js';
import {packed} from './packed.js';

const GUIDE = 'webhooks.md';
const steps = guideSteps(GUIDE);

let shop: Newcomer;

before(() => {
  shop = new Newcomer(packed.tarball);
});

after(async () => {
  await shop?.remove();
});

describe(`${GUIDE}, from an empty folder`, () => {
  it("starts from the first payment's project; the receiver and its test type-check with tsc --init's settings", () => {
    firstPaymentProject(shop, packed.firstPayment);
    doSteps(shop, stepsBefore(steps, 'npx tsc --noEmit'));
    assert.deepEqual(
      steps.filter((s) => s.kind === 'file').map((s) => s.name),
      ['webhooks.ts', 'webhooks.test.ts'],
    );
    typeCheck(shop);
  });

  it("step 2: the guide's test passes, run with its command", () => {
    const command = steps.find((s) => s.kind === 'command' && /--test/.test(s.text))!.text;
    assert.equal(command, 'npx tsx --test webhooks.test.ts');
    const {output} = shop.run(command);
    assert.match(output, /^# pass 2$/m);
    assert.match(output, /^# fail 0$/m);
  });

  it('the receiver as written takes a webhook the sandbox signed for a real payment, once', () => {
    // The sandbox in process (from the installed pg-checkout/sandbox): a payment whose
    // webhook goes to the receiver, served by Hono's Node server on a free port.
    shop.write(
      'check-receiver.ts',
      `import {serve} from '@hono/node-server';
import {startSandbox} from 'pg-checkout/sandbox';
import {GatewayClient} from 'pg-checkout/server';
import app from './webhooks.js';

const sandbox = await startSandbox({webhook: {duplicateRate: 1, reverseOrderRate: 0}});
process.env.API_SECRET = sandbox.credentials.apiSecret;
const answers: number[] = [];
const server = serve({fetch: async (request) => {
  const response = await app.fetch(request);
  answers.push(response.status);
  return response;
}, port: 0});
await new Promise((resolve) => server.once('listening', resolve));
const port = (server.address() as {port: number}).port;
const gateway = new GatewayClient(sandbox.clientOptions());
const paid = await gateway.createPayment({
  mode: 'direct',
  method: 'purchase',
  amount: '1.50',
  currency: 'XTS',
  description: 'Order ORDER-1001',
  order_id: 'ORDER-1001-' + Date.now(),
  order_3ds_bypass: 'supported',
  server_url: 'http://127.0.0.1:' + port + '/gateway/webhooks',
  cc_number: '4242424242424242',
  exp_month: 12,
  exp_year: new Date().getUTCFullYear() + 2,
  card_cvv: '123',
  customer_fname: 'Olena',
  customer_lname: 'Kovalenko',
  customer_email: 'olena@example.com',
  customer_phone: '+380501234567',
  customer_ip: '203.0.113.9',
  browser_fingerprint: {
    browserColorDepth: '24',
    browserScreenHeight: '900',
    browserScreenWidth: '1440',
    browserJavaEnabled: 'false',
    browserLanguage: 'en',
    browserTimeZone: 'Europe/Kyiv',
    browserTimeZoneOffset: '-120',
    browserAcceptHeader: 'text/html',
    browserIpAddress: '203.0.113.9',
    browserUserAgent: 'Mozilla/5.0',
  },
});
if (paid.kind !== 'direct') throw new Error('not a direct payment');
await sandbox.webhooksIdle();
console.log(JSON.stringify({status: paid.record.status, answers}));
server.close();
await sandbox.close();
`,
      true,
    );
    const {output} = shop.run('npx tsx check-receiver.ts', {}, true);
    const lines = output.trim().split('\n');
    const result = JSON.parse(lines.at(-1)!) as {status: string; answers: number[]};
    assert.equal(result.status, 'success');
    assert.ok(result.answers.length >= 2, `the sandbox sent it twice: ${result.answers}`);
    assert.deepEqual(new Set(result.answers), new Set([200]));
    const applied = lines.filter((l) => /^primary webhook for ORDER-1001-\d+: success$/.test(l));
    assert.equal(applied.length, 1, output);
  });
});
