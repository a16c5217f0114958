// Install commands for npm, pnpm and Yarn. The pages write npm's, which GitHub shows and the
// newcomer tests run (test/pack/newcomer/); the site shows each block of install commands as
// three tabs, written here from it, so the other two are never kept by hand. A block becomes
// tabs when it is a shell block (```sh, its title aside) whose every line is an install:
// `npm install` (the project's dependencies), `npm install <packages>` or
// `npm install -D <packages>` (`npm i` and `--save-dev` too), with an optional `# comment`.
const INSTALL =
  /^npm (?:install|i)(?<dev> (?:-D|--save-dev))?(?<packages>(?: [^\s#-][^\s#]*)*)(?<comment>\s+#.*)?\s*$/;
const FENCE = /^(`{3,})(sh|bash|shell)(?:\s.*)?$/;

/** The block's commands for each package manager, or undefined when it is not only installs. */
export function packageManagerCommands(code) {
  const lines = code.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return undefined;
  const out = {npm: [], pnpm: [], yarn: []};
  for (const line of lines) {
    const m = INSTALL.exec(line.trim());
    if (!m) return undefined;
    const packages = (m.groups.packages ?? '').trim();
    const comment = m.groups.comment ?? '';
    const dev = m.groups.dev ? ' -D' : '';
    out.npm.push(line.trim());
    out.pnpm.push(packages ? `pnpm add${dev} ${packages}${comment}` : `pnpm install${comment}`);
    out.yarn.push(packages ? `yarn add${dev} ${packages}${comment}` : `yarn install${comment}`);
  }
  return out;
}

/** `markdown` with each top-level block of install commands replaced by a VitePress code group. */
export function packageManagerTabs(markdown) {
  const lines = markdown.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    const close = open ? lines.findIndex((l, j) => j > i && l === open[1]) : -1;
    const commands = close > i && packageManagerCommands(lines.slice(i + 1, close).join('\n'));
    if (!commands) {
      out.push(lines[i]);
      continue;
    }
    out.push('::: code-group');
    for (const [manager, code] of Object.entries(commands)) {
      out.push(`${open[1]}${open[2]} [${manager}]`, ...code, open[1]);
    }
    out.push(':::');
    i = close;
  }
  return out.join('\n');
}
