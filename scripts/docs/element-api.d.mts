// Types of element-api.mjs (used by the docs' config and tests).

/** A custom element's declaration in custom-elements.json, with the path of its module. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ElementDeclaration = Record<string, any> & {
  tagName: string;
  name: string;
  modulePath: string;
};

export const MANIFEST: string;
export const PLACEHOLDER: RegExp;
export function manifestElements(file?: string): Map<string, ElementDeclaration>;
export function elementApiMarkdown(tag: string, elements?: Map<string, ElementDeclaration>): string;
export function expandElementApi(
  source: string,
  elements?: Map<string, ElementDeclaration>,
): string;
