/** The block's install commands for npm, pnpm and Yarn; undefined when it is not only installs. */
export declare function packageManagerCommands(
  code: string,
): {npm: string[]; pnpm: string[]; yarn: string[]} | undefined;
/** `markdown` with each block of npm install commands as a code group of npm, pnpm and Yarn tabs. */
export declare function packageManagerTabs(markdown: string): string;
