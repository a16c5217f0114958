/**
 * Styles of `<pg-3ds-redirect>`'s challenge dialog (iframe mode): loaded on demand, the
 * first time a challenge opens in a modal (`three-ds-redirect.ts`), since most pages never
 * open one. From the CDN a file beside `pg-checkout.js` that imports nothing, like the other
 * modules loaded on demand: so the text is a string, not Lit's `css` (which would tie the
 * file to the bundle's Lit). The `css` tag here only returns the text, and marks it for the
 * CDN build's template minifier.
 */
const css = (strings: TemplateStringsArray): string => strings.raw.join('');

export const styles = css`
  .dialog {
    padding: 0;
    border: 1px solid var(--_pg-border);
    border-radius: var(--pg-radius, 6px);
    background: var(--_pg-background);
    color: inherit;
    max-width: 100vw;
    max-height: 100vh;
  }
  .dialog::backdrop {
    background: var(--pg-backdrop, rgb(0 0 0 / 0.5));
  }
  .dialog--full {
    width: 100vw;
    height: 100vh;
    border: 0;
    border-radius: 0;
  }
  .dialog__bar {
    display: flex;
    justify-content: space-between;
    align-items: center;
    gap: 0.5rem;
    padding: 0.25rem 0.5rem;
    font-size: 0.875em;
  }
  .dialog__title {
    margin: 0;
    font-size: inherit;
    font-weight: 600;
  }
  .frame {
    display: block;
    border: 0;
    max-width: 100%;
  }
  .dialog--full .frame {
    width: 100vw;
    height: calc(100vh - 2.5rem);
  }
`;
