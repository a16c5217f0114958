/** Checks the README's marked blocks against their snippet files (see readme-snippets.mjs). */
export declare function checkSnippets(
  readmeText: string,
  baseDir?: string,
): {problems: string[]; blocks: number; written: string};
