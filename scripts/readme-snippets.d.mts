/** Checks the marked blocks of a Markdown file against their snippet files, and that every snippet is shown (see readme-snippets.mjs). */
export declare function checkSnippets(
  readmeText: string,
  baseDir?: string,
): {problems: string[]; blocks: number; written: string};
/** The snippet files (`docs/snippets/<name>`) the site's pages include with `<<< @/snippets/…`. */
export declare function includedSnippets(baseDir?: string): Set<string>;
