/**
 * Element registration that survives a second copy of pg-checkout on one page - the CDN
 * script and an npm bundle, say, or two bundles of one site. `customElements.define`
 * throws for a tag that is already taken; here the first copy keeps the tag, the second
 * leaves it alone, and in development the second says so once per tag, since two copies
 * mean twice the download and elements of the other copy's version.
 */
import {DEV_MODE, issueWarning} from './dev-mode.js';

/**
 * Class decorator that defines `tagName` unless it is already defined (Lit's
 * `@customElement` throws then).
 */
export function defineElement(tagName: string) {
  return function define(element: CustomElementConstructor): void {
    const defined = customElements.get(tagName);
    if (defined === undefined) {
      customElements.define(tagName, element);
    } else if (DEV_MODE && defined !== element) {
      issueWarning(
        `second-copy:${tagName}`,
        `<${tagName}> was already defined, most likely by another copy of pg-checkout on this page (the CDN script and a bundle, or two bundles); that definition stays and this copy's is not registered. Load pg-checkout once.`,
      );
    }
  };
}
