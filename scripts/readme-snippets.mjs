// Keeps the copyable code blocks of the README and the documentation site identical to the
// files they are kept in (docs/snippets/, type-checked and run by
// test/node/readme/snippets.test.ts). The site shows a file with VitePress's include,
// `<<< @/snippets/checkout.ts`, which is the file by construction. A block of a Markdown
// file marked with `<!-- snippet: docs/snippets/checkout.ts -->` on the line before its
// fence must hold exactly that file's text, byte for byte, in a fence of the file's
// language. Every file of docs/snippets/ but its tsconfigs must be shown somewhere: included
// by a page of the site, or in a marked block.
//
//   node scripts/readme-snippets.mjs            check; name each difference, exit 1 on any
//   node scripts/readme-snippets.mjs --write    rewrite the marked blocks from the files
//   --readme=<file>                             another markdown file (default README.md)
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SNIPPET_DIR = 'docs/snippets';
const MARKER = /^(\s*)<!-- snippet: (\S+) -->\s*$/;
const FENCE_LANGUAGE = {
  '.ts': 'ts',
  '.tsx': 'tsx',
  '.html': 'html',
  '.sh': 'sh',
  '.js': 'js',
  '.mjs': 'js',
};

/** Every marked block of `markdown`: its snippet path, language, text and line range. */
function markedBlocks(lines) {
  const blocks = [];
  const problems = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (!marker) continue;
    const [, indent, file] = marker;
    const open = new RegExp(`^${indent}(\`{3,})([\\w-]*)\\s*$`).exec(lines[i + 1] ?? '');
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
      language: open[2],
      first: i + 2,
      last: close,
      text: body.map((l) => `${l}\n`).join(''),
    });
    i = close;
  }
  return {blocks, problems};
}

/** The hand-written pages of the site under `baseDir`/docs (not its build or generated reference). */
function sitePages(baseDir) {
  const docs = path.join(baseDir, 'docs');
  if (!existsSync(docs)) return [];
  return readdirSync(docs, {recursive: true})
    .map((f) => String(f).split(path.sep).join('/'))
    .filter(
      (f) =>
        f.endsWith('.md') && !f.startsWith('.vitepress/') && !f.startsWith('reference/server/'),
    )
    .map((f) => path.join(docs, f));
}

/** The snippet files (as `docs/snippets/<name>`) that the site's pages include with `<<< @/snippets/…`. */
export function includedSnippets(baseDir = root) {
  const included = new Set();
  for (const page of sitePages(baseDir)) {
    const text = readFileSync(page, 'utf8');
    for (const m of text.matchAll(/^<<< @\/(snippets\/[^\s{#]+)/gm)) {
      included.add(path.normalize(`docs/${m[1]}`));
    }
  }
  return included;
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
 * Compares the marked blocks of `readmeText` with the snippet files under `baseDir`.
 * Returns the problems found and, for `--write`, the text with every block replaced.
 */
export function checkSnippets(readmeText, baseDir = root) {
  const lines = readmeText.split('\n');
  const {blocks, problems} = markedBlocks(lines);
  const shown = includedSnippets(baseDir);
  for (const block of blocks) {
    const full = path.join(baseDir, block.file);
    shown.add(path.normalize(block.file));
    if (!existsSync(full)) {
      problems.push(`line ${block.first}: ${block.file} does not exist`);
      continue;
    }
    block.expected = readFileSync(full, 'utf8');
    const language = FENCE_LANGUAGE[path.extname(block.file)];
    if (language && block.language !== language) {
      problems.push(
        `line ${block.first}: ${block.file} is shown as \`${block.language}\`, not \`${language}\``,
      );
    }
    if (!block.expected.endsWith('\n') || block.expected.endsWith('\n\n')) {
      problems.push(`${block.file}: must end with exactly one newline`);
    }
    if (block.text !== block.expected) {
      const at = firstDifference(block.text, block.expected);
      problems.push(
        `line ${block.first + at}: the block differs from ${block.file} (its line ${at}); edit the file, then run node scripts/readme-snippets.mjs --write`,
      );
    }
  }
  const dir = path.join(baseDir, SNIPPET_DIR);
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(SNIPPET_DIR, name);
      if (!/^tsconfig.*\.json$/.test(name) && !shown.has(file)) {
        problems.push(
          `${file} is shown nowhere: include it in a page of the site (<<< @/${file.slice(5)}) or mark a block with <!-- snippet: ${file} -->`,
        );
      }
    }
  }
  const out = [...lines];
  for (const block of [...blocks].reverse()) {
    if (block.expected === undefined) continue;
    const body = block.expected
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => (l ? block.indent + l : l));
    out.splice(block.first, block.last - block.first, ...body);
  }
  return {problems, blocks: blocks.length, written: out.join('\n')};
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const readme = path.resolve(
    args.find((a) => a.startsWith('--readme='))?.slice(9) ?? path.join(root, 'README.md'),
  );
  const text = readFileSync(readme, 'utf8');
  const result = checkSnippets(text);
  if (args.includes('--write')) {
    if (result.written !== text) writeFileSync(readme, result.written);
    const left = checkSnippets(result.written).problems;
    for (const p of left) console.error(`readme-snippets: ${p}`);
    console.log(`readme-snippets: ${result.blocks} blocks written from their files`);
    process.exit(left.length ? 1 : 0);
  }
  for (const p of result.problems)
    console.error(`readme-snippets: ${path.relative(root, readme)}: ${p}`);
  if (result.problems.length) process.exit(1);
  console.log(`readme-snippets: ${result.blocks} blocks match their files`);
}
