/** The fence info (`ts [checkout.ts]`) a snippet file is shown with (see snippets.mjs). */
export declare function fenceInfo(file: string, text: string): string;
/** Checks one page's marked blocks against their files; `written` is the page rewritten from them. */
export declare function checkPage(
  text: string,
  baseDir?: string,
): {problems: string[]; shown: string[]; written: string};
/** The README and the site's hand-written pages, relative to `baseDir`. */
export declare function markdownPages(baseDir?: string): string[];
/** Checks (or with `write`, first rewrites) every page, and that every snippet and example is shown. */
export declare function checkAll(
  baseDir?: string,
  options?: {write?: boolean},
): {problems: string[]; blocks: number; shown: Set<string>};
