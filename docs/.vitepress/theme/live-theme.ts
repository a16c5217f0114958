// The live examples follow the site's colour scheme, not only the reader's system: each
// element in a `.live-example` that draws itself (the card form, the 3-D Secure status) gets
// `theme="dark"` or `theme="light"` whenever the scheme or the page changes. An element that
// chose its own (`data-own-theme`, the playground's) is left alone.
import {onMounted, watch} from 'vue';
import {onContentUpdated, useData} from 'vitepress';

export const LIVE_ELEMENTS =
  '.live-example :is(pg-card-form, pg-3ds-redirect):not([data-own-theme])';

export function useLiveTheme(): void {
  const {isDark} = useData();
  const apply = () => {
    for (const el of document.querySelectorAll(LIVE_ELEMENTS)) {
      el.setAttribute('theme', isDark.value ? 'dark' : 'light');
    }
  };
  onMounted(apply);
  onContentUpdated(apply);
  watch(isDark, apply);
}
