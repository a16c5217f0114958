// The API tables of an element's documentation page, written from custom-elements.json (the
// manifest the build generates from the elements' JSDoc), never by hand. The site's Markdown
// renderer (docs/.vitepress/config.mts) replaces a line `<!-- element-api: pg-card-form -->`
// with `elementApiMarkdown('pg-card-form')`, so the tables are ordinary Markdown: rendered
// with the page, linked from the outline and found by the site's search.
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MANIFEST = path.join(root, 'custom-elements.json');
export const PLACEHOLDER = /^<!-- element-api: ([a-z0-9-]+) -->$/gm;

/** Every custom element the manifest declares, by tag name. */
export function manifestElements(file = MANIFEST) {
  if (!existsSync(file)) {
    throw new Error(`${path.relative(root, file)} is missing: run npm run build first`);
  }
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  const out = new Map();
  for (const module of manifest.modules ?? []) {
    for (const d of module.declarations ?? []) {
      if (d.customElement && d.tagName) out.set(d.tagName, {...d, modulePath: module.path});
    }
  }
  return out;
}

/** Text safe inside a Markdown table cell and a Vue template (the page is one). */
function cell(text) {
  return String(text ?? '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/\{\{/g, '&#123;&#123;')
    .trim();
}

const code = (text) => (text ? `\`${String(text).replace(/\|/g, '\\|').replace(/`/g, "'")}\`` : '');

function table(head, rows) {
  if (rows.length === 0) return '';
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n');
}

const isPublic = (m) =>
  !m.privacy && !m.static && !m.name.startsWith('_') && !m.name.startsWith('#');

/** The Markdown of one element's API: attributes, properties, methods, events, parts, properties. */
export function elementApiMarkdown(tag, elements = manifestElements()) {
  const d = elements.get(tag);
  if (!d) throw new Error(`custom-elements.json declares no <${tag}>`);
  const members = (d.members ?? []).filter(isPublic);
  const fields = members.filter((m) => m.kind === 'field');
  const byAttribute = new Map(fields.filter((f) => f.attribute).map((f) => [f.attribute, f]));
  // Three columns at most, so the descriptions keep their width beside the sidebar and the
  // outline at 1280 px: the property under its attribute, the default under the type.
  const attributes = (d.attributes ?? []).map((a) => {
    const field = byAttribute.get(a.name) ?? fields.find((f) => f.name === a.fieldName);
    const property = a.fieldName ?? field?.name;
    const fallback = a.default ?? field?.default;
    return [
      `${code(a.name)}${property && property !== a.name ? `<br>property ${code(property)}` : ''}`,
      `${code(a.type?.text ?? field?.type?.text)}${fallback ? `<br>default ${code(fallback)}` : ''}`,
      cell(a.description ?? field?.description),
    ];
  });
  const attributeFields = new Set((d.attributes ?? []).map((a) => a.fieldName));
  const properties = fields
    .filter((f) => !f.attribute && !attributeFields.has(f.name))
    .map((f) => [
      `${code(f.name)}${f.readonly ? '<br>read-only' : ''}`,
      code(f.type?.text),
      cell(f.description),
    ]);
  const methods = members
    // Lifecycle callbacks (formResetCallback, …) are the browser's to call, not yours.
    .filter((m) => m.kind === 'method' && !/Callback$/.test(m.name))
    .map((m) => [
      code(
        `${m.name}(${(m.parameters ?? []).map((p) => `${p.name}${p.optional || p.default ? '?' : ''}`).join(', ')})`,
      ),
      code(m.return?.type?.text),
      cell(m.description),
    ]);
  const events = (d.events ?? []).map((e) => [
    code(e.name),
    code(e.type?.text),
    cell(e.description),
  ]);
  const parts = (d.cssParts ?? []).map((p) => [code(p.name), cell(p.description)]);
  const props = (d.cssProperties ?? []).map((p) => [
    code(p.name),
    code(p.default),
    cell(p.description),
  ]);
  const section = (title, body, none) => `### ${title}\n\n${body || `${none}\n`}`;
  return [
    `## API of \`<${tag}>\``,
    '',
    `Generated from \`custom-elements.json\` (class \`${d.name}\`, \`${d.modulePath}\`).`,
    '',
    section('Attributes', table(['Attribute', 'Type', 'Description'], attributes), 'None.'),
    section(
      'Properties',
      table(['Property', 'Type', 'Description'], properties),
      'None besides the attributes.',
    ),
    section('Methods', table(['Method', 'Returns', 'Description'], methods), 'None.'),
    section('Events', table(['Event', 'Class', 'Description'], events), 'None.'),
    section('CSS parts', table(['Part', 'Description'], parts), 'None.'),
    section('CSS custom properties', table(['Property', 'Default', 'Description'], props), 'None.'),
  ].join('\n');
}

/** `source` with every `<!-- element-api: tag -->` line replaced by that element's API. */
export function expandElementApi(source, elements) {
  if (!source.includes('<!-- element-api:')) return source;
  const all = elements ?? manifestElements();
  return source.replace(PLACEHOLDER, (_, tag) => elementApiMarkdown(tag, all));
}
