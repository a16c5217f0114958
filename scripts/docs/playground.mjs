// What the attribute playground of an element's page (docs/.vitepress/theme/ElementPlayground.vue)
// offers: every attribute custom-elements.json declares for the element, each with the control
// its type asks for — a checkbox for a boolean, a list for a union of string literals (a named
// one, `ThreeDSMode`, resolved through the published declarations, dist/browser/index.d.ts,
// with TypeScript), a number or a text field otherwise — and the HTML it writes. Read at build
// time by a VitePress data loader (elements.data.ts); the HTML it shows is written in the
// browser by playground-html.mjs.
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {manifestElements} from './element-api.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DECLARATIONS = path.join(root, 'dist/browser/index.d.ts');

/** Each exported type alias of the browser entry that is a union of string literals: its values. */
export function literalAliases(entry = DECLARATIONS) {
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`${path.relative(root, entry)} is missing: run npm run build first`);
  const out = new Map();
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source))) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (!(target.flags & ts.SymbolFlags.TypeAlias)) continue;
    const type = checker.getDeclaredTypeOfSymbol(target);
    const members = type.isUnion() ? type.types : [type];
    if (members.every((t) => t.isStringLiteral())) {
      out.set(
        symbol.name,
        members.map((t) => t.value),
      );
    }
  }
  return out;
}

/** The control of one attribute, from its declared type. */
function control(attribute, aliases) {
  const members = String(attribute.type?.text ?? 'string')
    .split('|')
    .map((t) => t.trim())
    .filter((t) => t && t !== 'undefined');
  const base = {
    name: attribute.name,
    description: String(attribute.description ?? '').replace(/\s+/g, ' '),
    default: attribute.default ?? '',
  };
  if (members.length === 1 && members[0] === 'boolean') return {...base, kind: 'boolean'};
  if (members.length === 1 && members[0] === 'number') return {...base, kind: 'number'};
  if (members.length > 0 && members.every((m) => /^'[^']*'$/.test(m))) {
    return {...base, kind: 'choice', values: members.map((m) => m.slice(1, -1))};
  }
  if (members.length === 1 && aliases.has(members[0])) {
    return {...base, kind: 'choice', values: aliases.get(members[0])};
  }
  return {...base, kind: 'text'};
}

/** Every element's playground: its attributes' controls, by tag name. */
export function playgroundElements(elements = manifestElements(), aliases = literalAliases()) {
  const out = {};
  for (const [tag, d] of elements) {
    out[tag] = {tag, attributes: (d.attributes ?? []).map((a) => control(a, aliases))};
  }
  return out;
}
