/**
 * The documentation's copyable code: every ```ts and ```tsx block of the hand-written pages
 * (docs/**.md, without the generated reference), unless its fence says `no-check`
 * (```ts no-check) — a fragment that is not meant to compile alone. A block marked as a
 * file's copy (`<!-- snippet: docs/snippets/checkout.ts -->` on the line before) is that
 * file, checked where it lives (test/node/readme/snippets.test.ts, the frameworks tests)
 * and kept equal to it by scripts/docs/snippets.mjs: it is left out here.
 */
import {readFileSync, readdirSync} from 'node:fs';
import path from 'node:path';
import {ROOT} from './site.js';

export const DOCS = path.join(ROOT, 'docs');

export interface CodeBlock {
  /** Page and line, as `guides/webhooks.md:31`. */
  where: string;
  language: 'ts' | 'tsx';
  code: string;
  /** Whether it runs on the merchant's server (Node types) or in the browser (DOM). */
  side: 'server' | 'browser';
}

/** The hand-written Markdown pages of the site, relative to docs/. */
export function docPages(): string[] {
  return readdirSync(DOCS, {recursive: true})
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md') && !f.startsWith('reference/') && !f.startsWith('.vitepress/'))
    .sort();
}

const SERVER_IMPORT =
  /from ['"](?:pg-checkout\/(?:server|sandbox)|hono|@hono\/[\w-]+|node:[\w/]+|\.\/checkout\.js)['"]/;

/** The code blocks of one page's Markdown. */
export function codeBlocks(page: string, markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, language, rest] = open;
    const close = lines.findIndex((l, j) => j > i && l.trim() === fence);
    if (close === -1) throw new Error(`${page}:${i + 1}: a code block is never closed`);
    const marked = /^\s*<!-- snippet: \S+ -->\s*$/.test(lines[i - 1] ?? '');
    if ((language === 'ts' || language === 'tsx') && !/\bno-check\b/.test(rest!) && !marked) {
      const code = lines
        .slice(i + 1, close)
        .map((l) => (l.startsWith(indent!) ? l.slice(indent!.length) : l))
        .join('\n');
      out.push({
        where: `${page}:${i + 1}`,
        language,
        code: `${code}\n`,
        side: language === 'ts' && SERVER_IMPORT.test(code) ? 'server' : 'browser',
      });
    }
    i = close;
  }
  return out;
}

/** A block as a module file of the scratch project (a block without imports is a script). */
export function blockFile(block: CodeBlock, index: number): {name: string; text: string} {
  const slug = block.where.replace(/\.md:/, '-').replace(/[^\w-]/g, '-');
  const name = `docs-${String(index).padStart(2, '0')}-${slug}.${block.language}`;
  const isModule = /^\s*(import|export)\s/m.test(block.code);
  return {name, text: `// ${block.where}\n${block.code}${isModule ? '' : 'export {};\n'}`};
}

export function readPage(page: string): string {
  return readFileSync(path.join(DOCS, page), 'utf8');
}
