/**
 * The published custom-elements.json against the published elements: resolved through the
 * package's `exports` from the browser-only app, every path it names is a file of the
 * package, and for every element each attribute, property, method, event and part it
 * lists exists in the built class - static members on the class, the others on an
 * instance, read-only accessors without a setter, each event named as its class names it
 * and constructed by the element's module, each part rendered or written in its template.
 */
import {after, before, describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import type {Server} from 'node:http';
import {createRequire} from 'node:module';
import path from 'node:path';
import {build} from 'esbuild';
import type {Browser, Page} from 'playwright';
import {sharedChromium} from '../../scripts/chromium.mjs';

/**
 * The text of `module` and of every module of its own folder it imports, directly or
 * through another (`./x.js`): an element's controllers and templates.
 */
function folderModules(pkgDir: string, module: string): string[] {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(path.join(pkgDir, file), 'utf8');
    seen.set(file, text);
    // Static imports, and the element's own modules loaded on demand (`import('./x/y.js')`).
    for (const m of text.matchAll(/(?:from\s*|import\(\s*)["']\.\/([\w/-]+\.js)["']/g)) {
      visit(path.join(path.dirname(file), m[1]!));
    }
  };
  visit(module);
  return [...seen.values()];
}
import {installedPackage, packed, serve} from './packed.js';

interface Member {
  kind: 'field' | 'method';
  name: string;
  static?: boolean;
  readonly?: boolean;
  privacy?: string;
}
interface Declaration {
  kind: string;
  name: string;
  tagName?: string;
  customElement?: boolean;
  attributes?: Array<{name: string; fieldName?: string}>;
  members?: Member[];
  events?: Array<{name?: string; type?: {text: string}}>;
  cssParts?: Array<{name: string}>;
}
interface Manifest {
  modules: Array<{path: string; declarations?: Declaration[]; exports?: unknown[]}>;
}

const app = packed.browser;
const pkgDir = installedPackage(app);
const manifestFile = createRequire(path.join(app, 'package.json')).resolve(
  'pg-checkout/custom-elements.json',
);
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
const elements = manifest.modules.flatMap((m) =>
  (m.declarations ?? [])
    .filter((d) => d.customElement)
    .map((d) => ({module: m.path, declaration: d})),
);

let server: Server;
let browser: Browser;
let page: Page;

before(async () => {
  const dir = path.join(app, 'apps', 'manifest');
  mkdirSync(dir, {recursive: true});
  writeFileSync(path.join(dir, 'main.js'), `import * as pg from 'pg-checkout';\nwindow.pg = pg;\n`);
  const result = await build({
    entryPoints: [path.join(dir, 'main.js')],
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'error',
  });
  const bundle = result.outputFiles[0]!.text;
  const served = await serve(
    (req, res) => {
      const body =
        req.url === '/bundle.js'
          ? bundle
          : '<!doctype html><html lang="en"><title>m</title><script type="module" src="/bundle.js"></script></html>';
      res.writeHead(200, {
        'content-type': req.url === '/bundle.js' ? 'text/javascript' : 'text/html',
      });
      res.end(body);
      return true;
    },
    () => undefined,
  );
  server = served.server;
  browser = await sharedChromium();
  page = await browser.newPage();
  // tsx compiles this file with esbuild's keepNames: functions passed to page.evaluate may
  // call its __name helper, which the page does not have.
  await page.addInitScript('window.__name = (f) => f;');
  await page.goto(`${served.origin}/`);
  await page.waitForFunction(() => 'pg' in window);
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('custom-elements.json, as published', () => {
  it('is exported by the package and names only files of the package', () => {
    assert.equal(manifestFile, path.join(pkgDir, 'custom-elements.json'));
    const named: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== 'object') return;
      for (const [key, inner] of Object.entries(value)) {
        if ((key === 'path' || key === 'module') && typeof inner === 'string') named.push(inner);
        else walk(inner);
      }
    };
    walk(manifest.modules);
    assert.ok(named.length > 10);
    for (const file of new Set(named)) {
      assert.ok(file.startsWith('dist/browser/'), `${file} is a published path`);
      assert.ok(existsSync(path.join(pkgDir, file)), `${file} exists in the package`);
    }
  });

  it('describes the three elements', () => {
    assert.deepEqual(elements.map((e) => e.declaration.tagName).sort(), [
      'pg-3ds-redirect',
      'pg-card-form',
      'pg-fingerprint',
    ]);
  });

  for (const {module, declaration} of elements) {
    const tag = declaration.tagName!;

    it(`<${tag}>: attributes, properties and methods exist in the built class`, async () => {
      const missing = await page.evaluate(
        ({tag, declaration}) => {
          const Cls = customElements.get(tag) as unknown as {observedAttributes: string[]} & Record<
            string,
            unknown
          >;
          const el = document.createElement(tag) as unknown as Record<string, unknown>;
          const problems: string[] = [];
          const exported = (window as unknown as {pg: Record<string, unknown>}).pg[
            declaration.name
          ];
          if (exported !== Cls)
            problems.push(`${declaration.name} is not the class defined as <${tag}>`);
          for (const a of declaration.attributes ?? []) {
            if (!Cls.observedAttributes.includes(a.name)) problems.push(`attribute ${a.name}`);
          }
          const accessor = (target: object, name: string) => {
            for (let o: object | null = target; o; o = Object.getPrototypeOf(o)) {
              const d = Object.getOwnPropertyDescriptor(o, name);
              if (d) return d;
            }
            return undefined;
          };
          for (const m of declaration.members ?? []) {
            const target = m.static ? (Cls as object) : (el as object);
            const where = `${m.static ? 'static ' : ''}${m.kind} ${m.name}`;
            if (!(m.name in target)) {
              problems.push(`${where} is missing`);
              continue;
            }
            // Read descriptors only: a getter of an element that is not connected may throw.
            const d = accessor(target, m.name);
            if (m.kind === 'method' && typeof d?.value !== 'function')
              problems.push(`${where} is not a function`);
            if (m.readonly && d?.set) problems.push(`${where} has a setter`);
          }
          return problems;
        },
        {tag, declaration},
      );
      assert.deepEqual(missing, []);
    });

    it(`<${tag}>: every event is named by its class and dispatched by the element`, async () => {
      const own = folderModules(pkgDir, module);
      const source = own.join('\n');
      // The element's own module, a module of its own folder it imports (its reactive
      // controllers dispatch from the host), or the module of an element it renders (whose
      // composed events reach the element's listeners too, as <pg-3ds-redirect>'s do
      // inside <pg-card-form>).
      const dispatchers = [
        ...own,
        ...elements
          .filter((e) => e.module !== module && source.includes(`<${e.declaration.tagName}`))
          .map((e) => readFileSync(path.join(pkgDir, e.module), 'utf8')),
      ];
      for (const event of declaration.events ?? []) {
        assert.ok(
          event.name && /^pg-[a-z0-9-]+$/.test(event.name),
          `named: ${JSON.stringify(event)}`,
        );
        assert.ok(event.type?.text, `${event.name} has a type`);
        assert.ok(
          dispatchers.some((code) => code.includes(`new ${event.type!.text}(`)),
          `${module} (or an element it renders) constructs ${event.type.text}`,
        );
        const name = await page.evaluate((type) => {
          const Cls = (window as unknown as {pg: Record<string, new (d: unknown) => Event>}).pg[
            type
          ];
          return Cls ? new Cls({invalidFields: [], orderRef: 'o'}).type : null;
        }, event.type.text);
        assert.equal(name, event.name, `${event.type.text} is exported and named ${event.name}`);
      }
      const names = (declaration.events ?? []).map((e) => e.name);
      assert.equal(new Set(names).size, names.length, 'one entry per event');
    });

    it(`<${tag}>: every part is rendered or written in the built template`, async () => {
      // The element's module and the modules of its own folder it imports, directly or not
      // (a part such as the brand mark is written there, rendered only once a brand shows).
      const source = folderModules(pkgDir, module).join('\n');
      const written = [
        ...[...source.matchAll(/\bpart="([^"]*)"/g)].flatMap((m) => m[1]!.split(/\s+/)),
        // exportparts="inner: outer, ...": the outer names are this element's parts.
        ...[...source.matchAll(/\bexportparts="([^"]*)"/g)].flatMap((m) =>
          m[1]!.split(',').map((pair) => pair.split(':').at(-1)!.trim()),
        ),
      ];
      const rendered = await page.evaluate(async (tag) => {
        const el = document.createElement(tag) as HTMLElement & {updateComplete?: Promise<unknown>};
        document.body.append(el);
        await el.updateComplete;
        const parts = [...(el.shadowRoot?.querySelectorAll('[part]') ?? [])].flatMap((n) => [
          ...(n as HTMLElement).part,
        ]);
        el.remove();
        return parts;
      }, tag);
      const known = new Set([...written, ...rendered]);
      for (const part of declaration.cssParts ?? []) {
        assert.ok(known.has(part.name), `part ${part.name} exists in <${tag}>`);
      }
    });
  }
});
