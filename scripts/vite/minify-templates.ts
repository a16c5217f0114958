/**
 * Vite plugin of the CDN build: minifies the text of Lit's `html`, `svg` and `css` tagged
 * templates in our own sources, which the minifier leaves as written. Fewer bytes to
 * download and parse, and - for `html` - fewer whitespace text nodes for Lit to clone and
 * walk on the first render. The templates are found with the TypeScript parser (not a
 * regex), and only the literal text between `${...}` bindings is touched, never the bindings.
 *
 *   html: a run of whitespace that holds a line break is dropped between `>` and `<` (and
 *         at the very start and end of a template), elsewhere it becomes one space; the
 *         quotes around a static one-word attribute value go.
 *   css:  comments go, whitespace runs become one space, and the space around `{ } ; ,`
 *         and after `:` goes (a space before `:` is kept: `a :hover` differs from `a:hover`),
 *         so does the space around `>` (a child combinator or a range in a media query), and
 *         the zero before a decimal point (`0.75rem` → `.75rem`). `+` and `-` keep their
 *         spaces: `calc()` needs them.
 */
import ts from 'typescript';
import type {Plugin} from 'vite';

/** Minifies one literal piece of an `html` template; `first`/`last`: it opens/closes the template. */
export function minifyHtmlText(text: string, first: boolean, last: boolean): string {
  return text
    .replace(/\s*\n\s*/g, (run: string, offset: number) => {
      const before = offset === 0 ? (first ? '>' : '') : text[offset - 1];
      const end = offset + run.length;
      const after = end === text.length ? (last ? '<' : '') : text[end];
      return before === '>' && after === '<' ? '' : ' ';
    })
    .replace(STATIC_QUOTED_ATTRIBUTE, '$1=$2');
}

/**
 * A static attribute whose value is one word (`part="form"`, `type="button"`), followed by
 * a space or the tag's end: HTML needs no quotes around it. Not before `/` (`fill="x"/>`
 * would read `x/`), never a value with a binding (it does not end in the same piece).
 */
const STATIC_QUOTED_ATTRIBUTE = /(\s[a-z][\w-]*)="([\w-]+)"(?=[\s>])/g;

/** Minifies one literal piece of a `css` template. */
export function minifyCssText(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};,])\s*/g, '$1')
    .replace(/:\s+/g, ':')
    .replace(/;}/g, '}')
    .replace(/ ?> ?/g, '>')
    .replace(/(^|[\s:,(])0\.(?=\d)/g, '$1.')
    .trim();
}

const TAGS: Readonly<Record<string, 'html' | 'css'>> = {html: 'html', svg: 'html', css: 'css'};

/** Returns `source` with the literal text of its `html`, `svg` and `css` templates minified. */
export function minifyTemplates(source: string, fileName = 'source.ts'): string {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const edits: {start: number; end: number; out: string}[] = [];
  const visit = (node: ts.Node): void => {
    const kind =
      ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag)
        ? TAGS[node.tag.text]
        : undefined;
    if (kind && ts.isTaggedTemplateExpression(node)) {
      const t = node.template;
      const pieces: ts.TemplateLiteralLikeNode[] = ts.isNoSubstitutionTemplateLiteral(t)
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

/**
 * The plugin: minifies the templates of every `.ts` file under `src/` (or whose path
 * matches `files`: the benches build a fixture of their own), before it is compiled.
 */
export function minifyTemplatesPlugin(files = /[\\/]src[\\/].*\.ts$/): Plugin {
  return {
    name: 'pg-minify-templates',
    enforce: 'pre',
    transform: {
      filter: {id: files},
      handler(code, id) {
        return {code: minifyTemplates(code, id), map: null};
      },
    },
  };
}
