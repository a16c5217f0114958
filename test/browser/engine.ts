// What the element tests ask of the engine they run in, through commands every engine of
// `npm run test:browser` answers (scripts/wtr-engine-commands.mjs): the viewport's size, and
// the colour scheme the page is told the customer prefers, where the engine can pretend it.
import {executeServerCommand} from '@web/test-runner-commands';

/** Resizes the page's viewport to `width` × `height` CSS px (Chromium, Firefox and WebKit). */
export async function setViewport(size: {width: number; height: number}): Promise<void> {
  await executeServerCommand('pg-set-viewport', size);
}

/**
 * Makes `prefers-color-scheme` match `scheme`. Resolves false where the engine's protocol has
 * no way to (Firefox over WebDriver BiDi, WebKit over WebDriver): a test that needs a dark
 * preference skips there, and says why.
 */
export async function emulateColorScheme(scheme: 'light' | 'dark'): Promise<boolean> {
  const result = await executeServerCommand<
    {applied: boolean; reason?: string},
    {colorScheme: string}
  >('pg-emulate-media', {colorScheme: scheme});
  return result?.applied === true;
}

/** Skips the running test where the engine cannot be made to prefer `scheme`. */
export async function preferColorScheme(test: Mocha.Context, scheme: 'light' | 'dark') {
  if (!(await emulateColorScheme(scheme))) test.skip();
}
