// The HTML an element's attribute playground shows and copies (docs/.vitepress/theme/
// ElementPlayground.vue): the element with the attributes the reader set. Browser-safe: the
// site's client code imports it, and so do the tests.
const escapeAttribute = (value) =>
  String(value).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The HTML of `tag` with `attributes` (name → value; `true` writes a boolean attribute, `false`
 * and `''` write nothing), one attribute a line once there are two, as Prettier writes HTML.
 */
export function playgroundHtml(tag, attributes) {
  const written = Object.entries(attributes)
    .filter(([, v]) => v !== false && v !== '' && v !== undefined && v !== null)
    .map(([name, v]) => (v === true ? name : `${name}="${escapeAttribute(v)}"`));
  if (written.length < 2) return `<${tag}${written.map((a) => ` ${a}`).join('')}></${tag}>`;
  return `<${tag}\n${written.map((a) => `  ${a}`).join('\n')}\n></${tag}>`;
}
