// Writes the site's reference of `pg-checkout/server` (docs/reference/server/, not committed)
// from the published declarations (dist/server/*.d.ts) with TypeDoc and its Markdown plugin:
// every exported function, class, interface, type, constant and error code, with the JSDoc
// the source carries. Run by `npm run docs` and `npm run build:docs` before VitePress, so the
// reference is always the one of the code that was built.
import {existsSync, rmSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {Application} from 'typedoc';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const REFERENCE_DIR = path.join(root, 'docs/reference/server');
const ENTRY = path.join(root, 'dist/server/index.d.ts');

/** Generates the reference; resolves to the folder it wrote. Throws on any TypeDoc error. */
export async function writeServerReference(out = REFERENCE_DIR) {
  if (!existsSync(ENTRY)) {
    throw new Error('dist/server/index.d.ts is missing: run npm run build first');
  }
  rmSync(out, {recursive: true, force: true});
  const app = await Application.bootstrapWithPlugins({
    entryPoints: [ENTRY],
    tsconfig: path.join(root, 'scripts/docs/tsconfig.reference.json'),
    plugin: ['typedoc-plugin-markdown'],
    out,
    name: 'pg-checkout/server',
    readme: 'none',
    entryFileName: 'index',
    disableSources: true,
    excludePrivate: true,
    excludeProtected: true,
    excludeInternal: true,
    hidePageHeader: true,
    hideBreadcrumbs: true,
    useCodeBlocks: true,
    logLevel: 'Warn',
    // A warning (a link that resolves to nothing, a type referenced but not exported) is a
    // page that reads wrong: it fails the reference, and test/node/build/reference.test.ts.
    treatWarningsAsErrors: true,
    gitRevision: 'main',
  });
  const project = await app.convert();
  if (!project || app.logger.hasErrors() || app.logger.hasWarnings())
    throw new Error('TypeDoc could not read the declarations, or warned (see above)');
  await app.generateOutputs(project);
  // Link resolution warns while the pages are written, so look again after it.
  if (app.logger.hasErrors() || app.logger.hasWarnings())
    throw new Error('TypeDoc could not write the reference, or warned (see above)');
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await writeServerReference();
  console.log(`docs: wrote the pg-checkout/server reference to ${path.relative(root, out)}`);
}
