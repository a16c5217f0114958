// The documentation's code, readable on GitHub and on the site alike. Each block a reader
// copies is a file (docs/snippets/, docs/examples/, examples/), which the tests type-check
// and run, and the Markdown shows it in a marked block that holds its text byte for byte:
//
//   <!-- snippet: docs/snippets/checkout.ts -->
//   ```ts [checkout.ts]
//   …the file…
//   ```
//
// The file is the one source; the block is its copy, so GitHub shows the code (a VitePress
// `<<< @/snippets/…` include shows nothing there, and is refused here). The fence's language
// comes from the file's extension; its title, the name the reader saves the file as (shown
// above the block on the site, left out by GitHub), from the file's first line when that
// names it (`// checkout.ts — …`, `<!-- page.html — … -->`). Every file of docs/snippets/
// (but its tsconfigs) and docs/examples/ must be shown by some page.
//
//   node scripts/docs/snippets.mjs            check every page; name each difference, exit 1
//   node scripts/docs/snippets.mjs --write    rewrite every marked block from its file
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MARKER = /^(\s*)<!-- snippet: (\S+) -->\s*$/;
const INCLUDE = /^<<< @\/(\S+?)(?:\{[^}]*\})?\s*$/;
/** The folders whose every file some page must show. */
const SHOWN_DIRS = ['docs/snippets', 'docs/examples'];
const FENCE_LANGUAGE = {
  '.ts': 'ts',
  '.tsx': 'tsx',
  '.html': 'html',
  '.css': 'css',
  '.sh': 'sh',
  '.js': 'js',
  '.mjs': 'js',
  '.json': 'json',
};

/** The fence info a file is shown with: its language, and its title when its first line names it. */
export function fenceInfo(file, text) {
  const language = FENCE_LANGUAGE[path.extname(file)] ?? '';
  const first = text.split('\n', 1)[0] ?? '';
  const named = /^(?:\/\/|<!--|#)\s*([\w./[\]@-]+\.\w+) — /.exec(first)?.[1];
  return named ? `${language} [${named}]` : language;
}

/** Every marked block of the lines of a page: its file, fence info, text and line range. */
function markedBlocks(lines) {
  const blocks = [];
  const problems = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (!marker) continue;
    const [, indent, file] = marker;
    const open = new RegExp(`^${indent}(\`{3,})(.*)$`).exec(lines[i + 1] ?? '');
    if (!open) {
      problems.push(`line ${i + 1}: the marker for ${file} is not followed by a code fence`);
      continue;
    }
    const close = lines.findIndex((l, j) => j > i + 1 && l === indent + open[1]);
    if (close === -1) {
      problems.push(`line ${i + 2}: the code block of ${file} is never closed`);
      continue;
    }
    const body = lines
      .slice(i + 2, close)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    blocks.push({
      file,
      indent,
      fence: open[1],
      info: open[2].trim(),
      opening: i + 1,
      first: i + 2,
      last: close,
      text: body.map((l) => `${l}\n`).join(''),
    });
    i = close;
  }
  return {blocks, problems};
}

/** The first line where `a` and `b` differ, 1-based. */
function firstDifference(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = Math.max(x.length, y.length);
  for (let k = 0; k < n; k++) if (x[k] !== y[k]) return k + 1;
  return n;
}

/**
 * Checks one page's marked blocks against their files (paths relative to `baseDir`).
 * Returns the problems (`line N: …`), the files it shows, and its text with every block
 * rewritten from its file (what `--write` saves).
 */
export function checkPage(text, baseDir = root) {
  const lines = text.split('\n');
  const {blocks, problems} = markedBlocks(lines);
  lines.forEach((line, i) => {
    const include = INCLUDE.exec(line);
    if (include) {
      problems.push(
        `line ${i + 1}: ${line.trim()} shows nothing on GitHub: mark a block with <!-- snippet: <path from the repository's root> --> and run node scripts/docs/snippets.mjs --write`,
      );
    }
  });
  const out = [...lines];
  for (const block of [...blocks].reverse()) {
    const full = path.join(baseDir, block.file);
    if (!existsSync(full)) {
      problems.push(`line ${block.first}: ${block.file} does not exist`);
      continue;
    }
    const expected = readFileSync(full, 'utf8');
    if (!expected.endsWith('\n') || expected.endsWith('\n\n')) {
      problems.push(`${block.file}: must end with exactly one newline`);
    }
    const info = fenceInfo(block.file, expected);
    const fence = expected.includes('```') ? '````' : '```';
    if (block.info !== info) {
      problems.push(
        `line ${block.opening + 1}: ${block.file} is shown as \`${block.info}\`, not \`${info}\``,
      );
    }
    if (block.text !== expected) {
      const at = firstDifference(block.text, expected);
      problems.push(
        `line ${block.first + at}: the block differs from ${block.file} (its line ${at}); edit the file, then run node scripts/docs/snippets.mjs --write`,
      );
    }
    const body = expected
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => (l ? block.indent + l : l));
    out.splice(
      block.opening,
      block.last - block.opening + 1,
      `${block.indent}${fence}${info}`,
      ...body,
      `${block.indent}${fence}`,
    );
  }
  problems.sort((a, b) => Number(/\d+/.exec(a)?.[0] ?? 0) - Number(/\d+/.exec(b)?.[0] ?? 0));
  return {problems, shown: blocks.map((b) => path.normalize(b.file)), written: out.join('\n')};
}

/** The Markdown a reader reads: the README and the site's hand-written pages. */
export function markdownPages(baseDir = root) {
  const docs = path.join(baseDir, 'docs');
  const pages = existsSync(docs)
    ? readdirSync(docs, {recursive: true})
        .map((f) => String(f).split(path.sep).join('/'))
        .filter(
          (f) =>
            f.endsWith('.md') &&
            !f.startsWith('.vitepress/') &&
            !f.startsWith('reference/server/') &&
            !f.startsWith('snippets/') &&
            !f.startsWith('examples/'),
        )
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return existsSync(path.join(baseDir, 'README.md')) ? ['README.md', ...pages] : pages;
}

/**
 * Checks every page (or, with `write`, rewrites every block from its file first) and that
 * every file of docs/snippets/ and docs/examples/ is shown. Problems name the page.
 */
export function checkAll(baseDir = root, {write = false} = {}) {
  const problems = [];
  const shown = new Set();
  let blocks = 0;
  for (const page of markdownPages(baseDir)) {
    const file = path.join(baseDir, page);
    const text = readFileSync(file, 'utf8');
    let result = checkPage(text, baseDir);
    if (write && result.written !== text) {
      writeFileSync(file, result.written);
      result = checkPage(result.written, baseDir);
    }
    blocks += result.shown.length;
    result.shown.forEach((f) => shown.add(f));
    problems.push(...result.problems.map((p) => `${page}: ${p}`));
  }
  for (const dir of SHOWN_DIRS) {
    if (!existsSync(path.join(baseDir, dir))) continue;
    for (const name of readdirSync(path.join(baseDir, dir)).sort()) {
      const file = path.join(dir, name);
      if (!/^tsconfig.*\.json$/.test(name) && !shown.has(file)) {
        problems.push(
          `${file} is shown nowhere: mark a block of a page with <!-- snippet: ${file} --> and run node scripts/docs/snippets.mjs --write`,
        );
      }
    }
  }
  return {problems, blocks, shown};
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write');
  const {problems, blocks} = checkAll(root, {write});
  for (const p of problems) console.error(`snippets: ${p}`);
  if (problems.length) process.exit(1);
  console.log(`snippets: ${blocks} blocks ${write ? 'written from' : 'match'} their files`);
}
