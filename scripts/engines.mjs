// The browser engines the tests run in, named once: Chromium (scripts/chromium.mjs), Firefox
// (scripts/firefox.mjs) and WebKit (scripts/webkit.mjs). `PG_BROWSERS=firefox,webkit` narrows
// a run to some of them; before anything starts, each engine asked for is checked, and a
// missing one is reported in one line naming the Debian package that brings it.
import {chromiumExecutable} from './chromium.mjs';
import {firefoxExecutable} from './firefox.mjs';
import {webkitExecutables} from './webkit.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** The engines asked for by `PG_BROWSERS` (comma-separated), else all three. */
export function selectedEngines(value = process.env.PG_BROWSERS) {
  if (!value) return [...ENGINES];
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !ENGINES.includes(n));
  if (unknown.length || !names.length) {
    throw new Error(
      `PG_BROWSERS=${value}: name some of ${ENGINES.join(', ')}, separated by commas`,
    );
  }
  return ENGINES.filter((e) => names.includes(e));
}

/** Checks that each engine's programs are installed; throws one line naming the package. */
export async function checkEngines(engines = selectedEngines()) {
  for (const engine of engines) {
    if (engine === 'chromium') await chromiumExecutable();
    if (engine === 'firefox') firefoxExecutable();
    if (engine === 'webkit') webkitExecutables();
  }
}
