// esbuild plugin of the CDN build: minifies the text of Lit's `html` and `css` tagged
// templates in our own sources, which esbuild leaves as written. Fewer bytes to download
// and parse, and - for `html` - fewer whitespace text nodes for Lit to clone and walk on
// the first render. The templates are found with the TypeScript parser (not a regex), and
// only the literal text between `${...}` bindings is touched, never the bindings.
//
//   html: a run of whitespace that holds a line break is dropped between `>` and `<` (and
//         at the very start and end of a template), elsewhere it becomes one space.
//   css:  comments go, whitespace runs become one space, and the space around `{ } ; ,`
//         and after `:` goes (a space before `:` is kept: `a :hover` differs from `a:hover`).
import {readFile} from 'node:fs/promises';
import {createRequire} from 'node:module';

const ts = createRequire(import.meta.url)('typescript');

/** Minifies one literal piece of an `html` template; `first`/`last`: it opens/closes the template. */
export function minifyHtmlText(text, first, last) {
  return text.replace(/\s*\n\s*/g, (run, offset) => {
    const before = offset === 0 ? (first ? '>' : '') : text[offset - 1];
    const end = offset + run.length;
    const after = end === text.length ? (last ? '<' : '') : text[end];
    return before === '>' && after === '<' ? '' : ' ';
  });
}

/** Minifies one literal piece of a `css` template. */
export function minifyCssText(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};,])\s*/g, '$1')
    .replace(/:\s+/g, ':')
    .replace(/;}/g, '}')
    .trim();
}

const TAGS = {html: 'html', svg: 'html', css: 'css'};

/** Returns `source` with the literal text of its `html`, `svg` and `css` templates minified. */
export function minifyTemplates(source, fileName = 'source.ts') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const edits = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && TAGS[node.tag.text]) {
      const kind = TAGS[node.tag.text];
      const t = node.template;
      const pieces = ts.isNoSubstitutionTemplateLiteral(t)
        ? [t]
        : [t.head, ...t.templateSpans.map((s) => s.literal)];
      pieces.forEach((piece, i) => {
        // Raw text between the delimiters: ` or } before, ` or ${ after.
        const start = piece.getStart(file) + 1;
        const end = piece.end - (ts.isTemplateHead(piece) || ts.isTemplateMiddle(piece) ? 2 : 1);
        const text = source.slice(start, end);
        const out =
          kind === 'html'
            ? minifyHtmlText(text, i === 0, i === pieces.length - 1)
            : minifyCssText(text);
        if (out !== text) edits.push({start, end, out});
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = source;
  for (const e of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.out + out.slice(e.end);
  }
  return out;
}

/** The esbuild plugin: minifies templates in every `.ts` file under `src/`. */
export function minifyTemplatesPlugin() {
  return {
    name: 'pg-minify-templates',
    setup(build) {
      build.onLoad({filter: /[\\/]src[\\/].*\.ts$/}, async (args) => ({
        contents: minifyTemplates(await readFile(args.path, 'utf8'), args.path),
        loader: 'ts',
      }));
    },
  };
}
