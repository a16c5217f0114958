/**
 * Typing a full card number, expiry and CVV into `<pg-card-form>` (CDN bundle) in
 * Chromium must cause no long task (> 50 ms). Reports the longest task seen (0 when none)
 * and, from the Event Timing API, the slowest keystroke's processing duration.
 */
import {cdnChunks, ensureCdnBundle, launch, servePages} from './elements-pages.js';
import {round} from './stats.js';

const OBSERVE_JS = `
window.longTasks = [];
window.slowEvents = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.longTasks.push(e.duration);
}).observe({type: 'longtask', buffered: true});
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.slowEvents.push({name: e.name, duration: e.duration});
}).observe({type: 'event', durationThreshold: 16, buffered: true});
`;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>
<script src="/observe.js"></script><script type="module" src="/pg-checkout.js"></script></head>
<body><pg-card-form endpoint="/pay" order-ref="o-1"></pg-card-form></body></html>`;

export default async function elementsTyping() {
  const bundle = ensureCdnBundle();
  const site = await servePages({
    // The brand marks, loaded as the number is typed, count too.
    ...cdnChunks(),
    '/': ['text/html; charset=utf-8', PAGE],
    '/observe.js': ['text/javascript', OBSERVE_JS],
    '/pg-checkout.js': ['text/javascript', bundle],
  });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(`${site.origin}/`);
    const number = page.locator('pg-card-form input#number');
    await number.waitFor();
    // Only what typing causes counts: forget the page load.
    await page.evaluate(() => {
      const w = window as unknown as {longTasks: number[]; slowEvents: unknown[]};
      w.longTasks.length = 0;
      w.slowEvents.length = 0;
    });
    const year = String((new Date().getFullYear() + 3) % 100).padStart(2, '0');
    await number.pressSequentially('4242424242424242');
    await page.locator('pg-card-form input#expiry').pressSequentially(`12${year}`);
    await page.locator('pg-card-form input#cvv').pressSequentially('123');
    const formatted = await number.inputValue();
    await page.waitForTimeout(300);
    const {longTasks, slowEvents} = await page.evaluate(() => {
      const w = window as unknown as {longTasks: number[]; slowEvents: Array<{duration: number}>};
      return {longTasks: w.longTasks, slowEvents: w.slowEvents};
    });
    if (formatted !== '4242 4242 4242 4242') throw new Error(`typing went wrong: ${formatted}`);
    return {
      keystrokes: 16 + 4 + 3,
      longTasks: longTasks.length,
      maxLongTaskMs: round(Math.max(0, ...longTasks), 1),
      slowestEventMs: round(Math.max(0, ...slowEvents.map((e) => e.duration)), 1),
      limitMs: 50,
      withinLimit: longTasks.every((d) => d <= 50),
    };
  } finally {
    await browser.close();
    await site.close();
  }
}
