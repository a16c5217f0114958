/**
 * Reads the public surface of each package entry from its TypeScript source: every name
 * the entry exports, with whether it is a value (a function, class, constant — something
 * a merchant's code can import at run time) or only a type. The API test compares this
 * with the list it holds, so an export added or dropped by accident fails by name.
 */
import path from 'node:path';
import ts from 'typescript';

/** The package's entries (`package.json` `exports`) and the source module behind each. */
export const ENTRIES = {
  'pg-checkout': 'src/index.ts',
  'pg-checkout/fingerprint': 'src/fingerprint/collect.ts',
  'pg-checkout/validation': 'src/validation/card.ts',
  'pg-checkout/react': 'src/react/index.ts',
  'pg-checkout/hydrate': 'src/hydrate.ts',
  'pg-checkout/ssr': 'src/ssr.ts',
  'pg-checkout/server': 'src/server/index.ts',
  'pg-checkout/sandbox': 'sandbox/index.ts',
} as const;

export type Entry = keyof typeof ENTRIES;

/**
 * `value:name` or `type:name` for every export of every entry (or of the entries `only`
 * names: a program of fewer files), sorted.
 */
export function publicSurface<E extends Entry = Entry>(
  root: string,
  only: readonly E[] = Object.keys(ENTRIES) as E[],
): Record<E, string[]> {
  const files = only.map((entry) => path.join(root, ENTRIES[entry]));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const surface = {} as Record<E, string[]>;
  for (const entry of only) {
    const file = ENTRIES[entry];
    const source = program.getSourceFile(path.join(root, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file}: not a module`);
    surface[entry] = checker
      .getExportsOfModule(module)
      .map((symbol) => {
        const target =
          symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const kind = target.flags & ts.SymbolFlags.Value ? 'value' : 'type';
        return `${kind}:${symbol.getName()}`;
      })
      .sort();
  }
  return surface;
}
