/**
 * `<pg-3ds-redirect>`'s challenge dialog (iframe mode): its template (a modal `<dialog>`
 * with a title, a Cancel button and the bank's page in an `<iframe>` of an EMV challenge
 * window size) and its styles, loaded once, the first time a challenge opens in a modal
 * (`challenge-dialog.styles.ts`), since most pages never open one.
 */
import {adoptStyles, html, nothing, unsafeCSS, type CSSResultOrNative} from 'lit';
import type {CheckoutMessages} from '../i18n/messages.js';

let dialogCss: Promise<string | undefined> | undefined;

/**
 * The challenge dialog's styles (`challenge-dialog.styles.ts`), loaded once, the first time
 * a challenge opens in a modal; undefined when the load failed (the next one tries again).
 */
function loadDialogCss(): Promise<string | undefined> {
  dialogCss ??= import('./challenge-dialog.styles.js').then(
    (module) => module.styles,
    () => {
      dialogCss = undefined;
      return undefined;
    },
  );
  return dialogCss;
}

/**
 * Gives `root` the dialog's styles beside the element's own (`base`) before the first
 * challenge in a modal; false when they could not be loaded: the challenge then opens as in
 * redirect mode, a whole page, rather than in an unstyled dialog.
 */
export async function styleDialog(root: ShadowRoot, base: CSSResultOrNative[]): Promise<boolean> {
  const text = await loadDialogCss();
  if (text === undefined) return false;
  adoptStyles(root, [...base, unsafeCSS(text)]);
  return true;
}

/** What the dialog shows and does. */
export interface ChallengeDialog {
  t: CheckoutMessages;
  /** The EMV challenge window's size in CSS pixels, or full screen. */
  size: {width: number; height: number} | 'full';
  /** The bank's page; empty: no frame (closed, or not opened yet). */
  frameUrl: string;
  cancel(event?: Event): void;
  frameLoaded(): void;
}

/** The challenge dialog, closed until the element opens it (`showModal`). */
export function challengeDialog({t, size, frameUrl, cancel, frameLoaded}: ChallengeDialog) {
  const full = size === 'full';
  return html`<dialog
    part="dialog"
    class="dialog ${full ? 'dialog--full' : ''}"
    aria-labelledby="title"
    @cancel=${cancel}
  >
    <div class="dialog__bar">
      <h2 id="title" class="dialog__title">${t.threeDSTitle}</h2>
      <button part="cancel" class="button" type="button" @click=${() => cancel()}>
        ${t.cancel}
      </button>
    </div>
    ${
      frameUrl
        ? html`<iframe
            part="frame"
            class="frame"
            title=${t.threeDSTitle}
            src=${frameUrl}
            width=${full ? nothing : size.width}
            height=${full ? nothing : size.height}
            @load=${frameLoaded}
          ></iframe>`
        : nothing
    }
  </dialog>`;
}
