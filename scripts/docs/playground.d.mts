/** One attribute's control in an element's playground. */
export interface PlaygroundAttribute {
  name: string;
  description: string;
  default: string;
  kind: 'boolean' | 'number' | 'choice' | 'text';
  values?: string[];
}
export interface PlaygroundElement {
  tag: string;
  attributes: PlaygroundAttribute[];
}
/** Each exported union-of-string-literals type alias of the browser entry, with its values. */
export declare function literalAliases(entry?: string): Map<string, string[]>;
/** Every element's playground, by tag name. */
export declare function playgroundElements(
  elements?: Map<string, unknown>,
  aliases?: Map<string, string[]>,
): Record<string, PlaygroundElement>;
