/**
 * The documentation is executable: each block a merchant copies is a file of docs/snippets/,
 * shown by a page in a marked block that holds it byte for byte (scripts/docs/snippets.mjs,
 * so GitHub shows the code too), and here those files are put in a merchant's project with
 * pg-checkout installed from this package, type-checked with `strict`, and run as written:
 * the minimal setup (orders.ts, checkout.ts, server.ts) takes a payment from the gateway
 * sandbox over HTTP, the Next.js route handler takes one from a `Request`, and the gateway
 * client reads it back.
 */
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, type ChildProcess} from 'node:child_process';
import {createHash, randomUUID} from 'node:crypto';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {checkAll, checkPage, fenceInfo} from '../../../scripts/docs/snippets.mjs';
import {DEFAULT_CREDENTIALS, startSandbox, type Sandbox} from '../../../sandbox/index.js';
import type {GatewayClient} from '../../../src/server/index.js';
import {CARDS, PAY_HEADERS, freePort, nextCvv, payBody} from '../checkout/helpers.js';
import {
  ROOT,
  SNIPPETS,
  bareImports,
  installedBy,
  merchantProject,
  packageJson,
  typecheck,
  type MerchantProject,
} from './merchant-project.js';

const snippet = (name: string) => readFileSync(path.join(SNIPPETS, name), 'utf8');
const INSTALL = installedBy(snippet('install-server.sh'));
/** The snippets that run on the merchant's server. */
const SERVER_SNIPPETS = [
  'orders.ts',
  'checkout.ts',
  'server.ts',
  'next-route.ts',
  'gateway.ts',
  'ssr-page.ts',
  'store.ts',
  'saved-cards.ts',
  'session.ts',
  'checkout-saved-cards.ts',
  'server-saved-cards.ts',
  'checkout-instances.ts',
  'webhooks.ts',
  'webhooks.test.ts',
  'checkout-subscriptions.ts',
  'server-ssr.ts',
];
const TSX = import.meta.resolve('tsx');

/** A pay request as `<pg-card-form>` sends it with no customer fields: its default. */
function formPayBody(orderRef: string, cvv: string) {
  const body = payBody(orderRef, `att-${randomUUID()}`, CARDS.success, cvv);
  delete body.customer;
  return body;
}

/** The variables the README's sandbox command sets (docs/snippets/try-sandbox.sh). */
const TRY_SANDBOX: Record<string, string> = Object.fromEntries(
  [...snippet('try-sandbox.sh').matchAll(/(?:^|\s)([A-Z][A-Z_]*)=(\S+)/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]),
);

/**
 * The README's sandbox command's settings, with `sandbox`'s address (the test cannot count
 * on port 4010) and `publicUrl` in place of its own; nothing else from this process leaks in.
 */
function snippetEnv(sandbox: Sandbox, publicUrl: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'SystemRoot']) {
    if (process.env[key] !== undefined) env[key] = process.env[key];
  }
  return {...env, ...TRY_SANDBOX, GATEWAY_BASE_URL: sandbox.url, PUBLIC_URL: publicUrl};
}

/** `node server.ts` in the project, as the README runs it, with its output collected. */
function run(project: MerchantProject, file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', TSX, file], {cwd: project.dir, env});
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves once the output has `text` (looked at as each chunk arrives), fails on exit. */
  const waitFor = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const look = () => {
        if (!output.includes(text)) return;
        child.stdout.off('data', look);
        child.stderr.off('data', look);
        resolve();
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      void exited.then((code) => reject(new Error(`${file} exited (${code}):\n${output}`)));
      look();
    });
  return {child, exited, waitFor, output: () => output};
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('the snippets are the files the pages show', () => {
  test('every marked block of every page is its file, and every snippet is shown by a page', () => {
    const {problems, shown} = checkAll();
    assert.deepEqual(problems, []);
    for (const name of [
      ...SERVER_SNIPPETS,
      'install-server.sh',
      'try-sandbox.sh',
      'page-npm.ts',
      'page-cdn.html',
    ]) {
      assert.ok(shown.has(path.normalize(`docs/snippets/${name}`)), `${name} is on no page`);
    }
  });

  test('a snippet no page shows is named; a block that drifts, an include or a wrong fence is named, and --write puts the file back', () => {
    const base = mkdtempSync(path.join(tmpdir(), 'pg-snippets-'));
    try {
      mkdirSync(path.join(base, 'docs/snippets'), {recursive: true});
      mkdirSync(path.join(base, 'docs/guides'), {recursive: true});
      for (const name of ['checkout.ts', 'gateway.ts']) {
        writeFileSync(path.join(base, 'docs/snippets', name), snippet(name));
      }
      const marked = (info: string, text: string) =>
        `# A\n\n<!-- snippet: docs/snippets/checkout.ts -->\n\`\`\`${info}\n${text}\`\`\`\n`;
      const good = marked('ts [checkout.ts]', snippet('checkout.ts'));
      writeFileSync(path.join(base, 'docs/guides/a.md'), good);
      assert.deepEqual(checkAll(base).problems, [
        'docs/snippets/gateway.ts is shown nowhere: mark a block of a page with <!-- snippet: docs/snippets/gateway.ts --> and run node scripts/docs/snippets.mjs --write',
      ]);
      assert.deepEqual(checkPage(good, base), {
        problems: [],
        shown: [path.normalize('docs/snippets/checkout.ts')],
        written: good,
      });

      const drifted = good.replace('createCheckoutApp({', 'createCheckoutApp( {');
      assert.notEqual(drifted, good);
      const wrongFence = marked('ts', snippet('checkout.ts'));
      const include = `${good}\n<<< @/snippets/gateway.ts\n`;
      assert.match(
        checkPage(drifted, base).problems.join('\n'),
        /differs from docs\/snippets\/checkout\.ts/,
      );
      assert.match(
        checkPage(wrongFence, base).problems.join('\n'),
        /shown as `ts`, not `ts \[checkout\.ts\]`/,
      );
      assert.match(checkPage(include, base).problems.join('\n'), /shows nothing on GitHub/);
      assert.equal(checkPage(drifted, base).written, good, '--write restores the block');
      assert.equal(checkPage(wrongFence, base).written, good, '--write restores the fence');
    } finally {
      rmSync(base, {recursive: true, force: true});
    }
  });

  test("a block's title is the file name its first line gives", () => {
    assert.equal(
      fenceInfo('docs/snippets/checkout.ts', snippet('checkout.ts')),
      'ts [checkout.ts]',
    );
    assert.equal(
      fenceInfo('docs/snippets/next-route.ts', snippet('next-route.ts')),
      'ts [app/checkout/[...path]/route.ts]',
    );
    assert.equal(fenceInfo('docs/snippets/install-server.sh', snippet('install-server.sh')), 'sh');
  });

  test("the sandbox command sets every variable checkout.ts reads, at the sandbox's defaults", () => {
    const read = [...snippet('checkout.ts').matchAll(/env\('([A-Z_]+)'\)/g)].map((m) => m[1]!);
    for (const name of [...read, 'GATEWAY_BASE_URL']) assert.ok(TRY_SANDBOX[name], `${name} unset`);
    assert.deepEqual(
      {
        posId: TRY_SANDBOX.POS_ID,
        apiKey: TRY_SANDBOX.API_KEY,
        apiSecret: TRY_SANDBOX.API_SECRET,
        endpointsKey: TRY_SANDBOX.ENDPOINTS_KEY,
      },
      {...DEFAULT_CREDENTIALS},
    );
    // `npx pg-checkout-sandbox` listens on 4010 unless told otherwise; server.ts on 3000.
    const cli = readFileSync(path.join(ROOT, 'sandbox/cli.ts'), 'utf8');
    const port = /env\['SANDBOX_PORT'\] \?\? '(\d+)'/.exec(cli)?.[1];
    assert.equal(TRY_SANDBOX.GATEWAY_BASE_URL, `http://127.0.0.1:${port}`);
    assert.match(snippet('server.ts'), /Number\(process\.env\.PORT\) \|\| 3000/);
    assert.equal(TRY_SANDBOX.PUBLIC_URL, 'http://localhost:3000');
    assert.match(snippet('try-sandbox.sh'), /^npx pg-checkout-sandbox\b/);
    assert.ok(packageJson().bin?.['pg-checkout-sandbox'], 'the package has that bin');
  });

  test('the install line names every package the server snippets import', () => {
    const imported = new Set(SERVER_SNIPPETS.flatMap((f) => bareImports(snippet(f))));
    assert.ok(imported.has('pg-checkout') && imported.has('@hono/node-server'));
    for (const name of imported) assert.ok(INSTALL.includes(name), `${name} is not installed`);
    // SqlitePaymentStore runs on better-sqlite3.
    assert.ok(snippet('checkout.ts').includes('SqlitePaymentStore'));
    assert.ok(INSTALL.includes('better-sqlite3'));
  });
});

describe('the snippets in a merchant project', () => {
  let project: MerchantProject;
  let sandbox: Sandbox;
  before(async () => {
    project = merchantProject(INSTALL);
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox?.close();
    project?.remove();
  });

  test('the server snippets type-check with strict, pg-checkout resolved through its exports', () => {
    const {ok, output} = typecheck(project.dir, 'tsconfig.json');
    assert.ok(ok, output);
    const files = (JSON.parse(snippet('tsconfig.json')) as {files: string[]}).files;
    assert.deepEqual([...files].sort(), [...SERVER_SNIPPETS].sort());
  });

  test('the npm page script type-checks with strict and DOM types from pg-checkout', () => {
    const {ok, output} = typecheck(project.dir, 'tsconfig.browser.json');
    assert.ok(ok, output);
  });

  test('a snippet reading process.env without a check fails the strict type-check', () => {
    // The check above can fail: the README's old `posId: process.env.POS_ID` did.
    writeFileSync(
      path.join(project.dir, 'checkout.ts'),
      snippet('checkout.ts').replace("posId: env('POS_ID')", 'posId: process.env.POS_ID'),
    );
    try {
      const {ok, output} = typecheck(project.dir, 'tsconfig.json');
      assert.equal(ok, false);
      assert.match(output, /checkout\.ts.*TS2322/);
    } finally {
      writeFileSync(path.join(project.dir, 'checkout.ts'), snippet('checkout.ts'));
    }
  });

  test('the minimal setup stops at start-up naming a setting that is missing', async () => {
    const env = snippetEnv(sandbox, 'http://127.0.0.1:9');
    delete env.API_SECRET;
    const server = run(project, 'server.ts', env);
    assert.notEqual(await server.exited, 0);
    assert.match(server.output(), /API_SECRET is not set/);
  });

  test('the minimal setup takes a payment as written: server.ts paid by 4242 4242 4242 4242', async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const server = run(project, 'server.ts', {
      ...snippetEnv(sandbox, publicUrl),
      PORT: String(port),
    });
    const cvv = nextCvv();
    try {
      await server.waitFor(`listening on http://localhost:${port}`);
      const charges = sandbox.chargeCount();
      // What <pg-card-form endpoint="/checkout/pay" order-ref="ORDER-1001"> sends.
      const res = await fetch(`${publicUrl}/checkout/pay`, {
        method: 'POST',
        headers: {...PAY_HEADERS, Origin: publicUrl},
        body: JSON.stringify(formPayBody('ORDER-1001', cvv)),
      });
      const answer = (await res.json()) as Record<string, unknown>;
      assert.equal(res.status, 200, JSON.stringify(answer));
      assert.equal(answer.outcome, 'success', JSON.stringify(answer));
      await server.waitFor('order ORDER-1001 paid'); // orders.ts, from onPaymentUpdate
      assert.equal(sandbox.chargeCount(), charges + 1);

      // The customer the gateway required came from the order, on the server.
      const paid = sandbox.payments().find((p) => p.orderId.startsWith('ORDER-1001-'));
      assert.ok(paid);
      assert.equal(paid.status, 'success');
      await sandbox.webhooksIdle();
    } finally {
      await stop(server.child);
    }
    const log = server.output();
    assert.doesNotMatch(log, /"level":(40|50|60)/, 'nothing logged at warn or above');
    assert.ok(!log.includes(CARDS.success) && !log.includes(`"${cvv}"`), 'card data in the log');
  });

  test('the Next.js route handler takes a payment from a Request, and the client reads it back', async (t) => {
    const publicUrl = `http://127.0.0.1:${await freePort()}`; // nothing listens: no webhooks
    const saved = {cwd: process.cwd(), env: {...process.env}};
    const paidLines: string[] = [];
    let paid!: () => void;
    const paidLogged = new Promise<void>((resolve) => (paid = resolve));
    t.mock.method(console, 'log', (line: string) => {
      paidLines.push(line);
      paid();
    });
    Object.assign(process.env, snippetEnv(sandbox, publicUrl));
    process.chdir(mkdtempSync(path.join(project.dir, 'next-')));
    type Handler = (request: Request) => Response | Promise<Response>;
    let route: {GET: Handler; POST: Handler; runtime: string};
    let client: {gateway: GatewayClient};
    try {
      route = await import(pathToFileURL(path.join(project.dir, 'next-route.ts')).href);
      client = await import(pathToFileURL(path.join(project.dir, 'gateway.ts')).href);
    } finally {
      process.chdir(saved.cwd);
      process.env = saved.env;
    }
    assert.equal(route.runtime, 'nodejs');

    const res = await route.POST(
      new Request(`${publicUrl}/checkout/pay`, {
        method: 'POST',
        headers: {...PAY_HEADERS, Origin: publicUrl, 'X-Real-IP': '203.0.113.9'},
        body: JSON.stringify(formPayBody('ORDER-1001', nextCvv())),
      }),
    );
    const answer = (await res.json()) as Record<string, unknown>;
    assert.equal(answer.outcome, 'success', JSON.stringify(answer));
    // The update is delivered from the outbox on the next turn, after the answer.
    await paidLogged;
    assert.deepEqual(paidLines, ['order ORDER-1001 paid']);

    const status = await route.GET(new Request(`${publicUrl}/checkout/status?order=ORDER-1001`));
    assert.equal(status.status, 200);
    assert.equal(((await status.json()) as {state: string}).state, 'success');

    const orderId = sandbox
      .payments()
      .map((p) => p.orderId)
      .filter((id) => id.startsWith('ORDER-1001-'))
      .at(-1)!;
    const [primary] = await client.gateway.getOrder(orderId);
    assert.equal(primary?.status, 'success');
    assert.equal(primary?.customer_fname, 'Olena'); // from orders.ts, not from the browser
    assert.equal(primary?.customer_phone, '+380501234567');
  });

  test('the CDN page loads the version, file and hash kind the build makes', () => {
    const pkg = packageJson();
    const page = snippet('page-cdn.html');
    const tag = /<script\s([^>]*)>\s*<\/script>/.exec(page);
    assert.ok(tag, 'no script tag');
    const attrs = Object.fromEntries(
      [...tag[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    assert.equal(attrs.type, 'module');
    assert.equal(attrs.crossorigin, 'anonymous');
    const src = /^https:\/\/[^/]+\/pg-checkout@([^/]+)\/(.+)$/.exec(attrs.src ?? '');
    assert.ok(src, `src ${attrs.src}`);
    assert.equal(src[1], pkg.version, 'the version the package has');
    const file = path.join(project.dir, 'node_modules/pg-checkout', src[2]!);
    const sriFile = `${file}.sri`;
    const sri = readFileSync(sriFile, 'utf8').trim();
    const [algorithm, hash] = sri.split(/-(.*)/s);
    assert.equal(
      hash,
      createHash(algorithm!).update(readFileSync(file)).digest('base64'),
      'the .sri file is the hash of the published file',
    );
    assert.ok(attrs.integrity?.startsWith(`${algorithm}-`), `integrity ${attrs.integrity}`);
    assert.match(attrs.integrity ?? '', new RegExp(`${path.basename(sriFile)}`));
    const form = /<pg-card-form\s([^>]*)>/.exec(page)?.[1] ?? '';
    assert.match(form, /endpoint="\/checkout\/pay"/, 'the pay route of server.ts');
  });
});
