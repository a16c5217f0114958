/** The HTML of `tag` with `attributes` (`true`: a boolean attribute; `false`, `''`: none). */
export declare function playgroundHtml(
  tag: string,
  attributes: Record<string, string | boolean | undefined>,
): string;
