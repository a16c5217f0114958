// Every public export of the package's entries carries a doc comment: what a merchant's
// editor shows on hover and what the site's reference prints (TypeDoc reads the same
// comments). Read with TypeScript's own API, as an editor reads them: each name an entry
// exports, followed through its re-exports to the declaration, must have a TSDoc/JSDoc
// description there (`@param` or `@returns` alone is not one). A name declared more than
// once (a class and its namespace, overloads) needs it on one declaration. Every function
// and class of pg-checkout/server (its errors aside) also shows its use in an `@example`,
// whose code test/node/docs/code-blocks.test.ts type-checks in a merchant's project.
//
//   node scripts/docs/undocumented.mjs     list each export without a description, exit 1
//
// Run by `npm run lint`; test/node/api/documented.test.ts checks the check on its own cases.
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The published entries whose every export must be documented, by their source files. */
export const DOCUMENTED_ENTRIES = {
  'pg-checkout': 'src/index.ts',
  'pg-checkout/server': 'src/server/index.ts',
  'pg-checkout/sandbox': 'sandbox/index.ts',
};

/**
 * Exports left undocumented for now, each with why (`'entry: Name': 'reason'`). Listed, not
 * skipped: one that gains its comment must leave this list (the check says so), and none
 * may be added without a reason. Empty: every export is documented.
 */
export const PENDING = /** @type {Record<string, string>} */ ({});

/** The entries whose functions and classes (errors aside) must carry an `@example` too. */
export const EXAMPLES_REQUIRED = ['pg-checkout/server'];

/** An error class: its name says so (every error class of the package ends in `Error`). */
const isErrorClass = (symbol) => /Error$/.test(symbol.name);

/** The declarations an entry exports, each with its entry, name, file and doc. */
function exportedDeclarations(entries, options, baseDir) {
  const files = Object.values(entries).map((f) => path.resolve(baseDir, f));
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  const out = [];
  for (const [entry, file] of Object.entries(entries)) {
    const source = program.getSourceFile(path.resolve(baseDir, file));
    if (!source) throw new Error(`${file} is not in the program`);
    const module = checker.getSymbolAtLocation(source);
    if (!module) continue; // no exports at all
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const where = symbol.declarations?.[0]?.getSourceFile().fileName;
      out.push({
        entry,
        name: exported.name,
        file: where ? path.relative(baseDir, where) : undefined,
        description: ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim(),
        examples: symbol
          .getJsDocTags(checker)
          .filter((tag) => tag.name === 'example')
          .map((tag) => ts.displayPartsToString(tag.text)),
        needsExample:
          EXAMPLES_REQUIRED.includes(entry) &&
          ((symbol.flags & ts.SymbolFlags.Function) !== 0 ||
            ((symbol.flags & ts.SymbolFlags.Class) !== 0 && !isErrorClass(symbol))),
      });
    }
  }
  return out;
}

const label = (d) => `${d.entry}: ${d.name}${d.file ? ` (${d.file})` : ''}`;

/**
 * The functions and classes of EXAMPLES_REQUIRED's entries without an `@example` with a
 * code block, as `entry: Name (file)`.
 */
export function exportsWithoutExample(entries, options, baseDir = root) {
  return exportedDeclarations(entries, options, baseDir)
    .filter((d) => d.needsExample && !d.examples.some((e) => /```ts\n/.test(e)))
    .map(label)
    .sort();
}

/** The code of every `@example` of the exports of `entries`: `{where, code}`, TypeScript. */
export function exampleCode(entries, options, baseDir = root) {
  const out = [];
  for (const d of exportedDeclarations(entries, options, baseDir)) {
    for (const example of d.examples) {
      for (const m of example.matchAll(/```tsx?\n([\s\S]*?)```/g)) {
        out.push({where: label(d), code: m[1]});
      }
    }
  }
  return out;
}

/**
 * The exports of `entries` ({name: file}) without a description, as `entry: Name (file)`,
 * through one program built with `options`.
 */
export function undocumentedExports(entries, options, baseDir = root) {
  return exportedDeclarations(entries, options, baseDir)
    .filter((d) => !d.description)
    .map(label)
    .sort();
}

/** The compiler options of the tree's type check (tsconfig.json). */
export function projectOptions() {
  const configFile = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  return {...parsed.options, noEmit: true};
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const declarations = exportedDeclarations(DOCUMENTED_ENTRIES, projectOptions(), root);
  const pending = (d) => `${d.entry}: ${d.name}` in PENDING;
  const lacksExample = (d) => d.needsExample && !d.examples.some((e) => /```ts\n/.test(e));
  const missing = declarations.filter((d) => !d.description && !pending(d)).map(label);
  const noExample = declarations.filter((d) => lacksExample(d) && !pending(d)).map(label);
  const done = Object.keys(PENDING).filter(
    (key) =>
      !declarations.some(
        (d) => `${d.entry}: ${d.name}` === key && (!d.description || lacksExample(d)),
      ),
  );
  const problems = [
    ...missing.map((line) => `${line}: no doc comment (a /** … */ description on its declaration)`),
    ...noExample.map((line) => `${line}: no @example with a \`\`\`ts block`),
    ...done.map((key) => `${key}: documented now: remove it from PENDING`),
  ].sort();
  if (problems.length > 0) {
    console.error(`undocumented: ${problems.length} problems with the public exports' docs:`);
    for (const line of problems) console.error(`  ${line}`);
    process.exit(1);
  }
  console.log(
    `undocumented: every export of ${Object.keys(DOCUMENTED_ENTRIES).join(', ')} has a doc comment` +
      ` (and every function and class of ${EXAMPLES_REQUIRED.join(', ')} an example),` +
      ` but the ${Object.keys(PENDING).length} of PENDING (files being rewritten)`,
  );
}
