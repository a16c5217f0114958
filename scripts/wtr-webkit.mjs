// WebKit as a web-test-runner launcher: each test file runs in a WebKitGTK MiniBrowser of its
// own, driven over classic WebDriver by webdriverio (scripts/webkit.mjs), up to `concurrency`
// at once. Each browser has an X display of its own, so each window is the focused one (a
// page without the focus fires no `focus` or `blur`, and its fields never validate on
// leaving). (@web/test-runner-webdriver runs one page at a time, or several in iframes of one
// page, which share the focus and the keyboard.) Typing is real key events, each key
// pressed and released before the next (see `typeActions`); `sendMouse` is real pointer
// events too. (`sendKeys`' `down` and `up` have no WebDriver form in @web/test-runner-commands.)
import {launchWebKit, pressActions, typeActions} from './webkit.mjs';

/** Sizes a WebDriver window so that its page's viewport is `width` × `height` CSS px. */
export async function setViewportSize(driver, {width, height}) {
  const viewport = () => driver.execute(() => [window.innerWidth, window.innerHeight]);
  for (let i = 0; i < 3; i++) {
    let inner = await viewport();
    if (inner[0] === width && inner[1] === height) return;
    const rect = await driver.getWindowRect();
    await driver.setWindowRect(
      null,
      null,
      rect.width + width - inner[0],
      rect.height + height - inner[1],
    );
    // The window manager resizes after the command has returned, and the page learns of it
    // later still: on a loaded machine, three resizes in a row each read the old size (a
    // 400 px viewport kept). Each look is a round trip to the browser, not a clock.
    const before = inner;
    for (let look = 0; look < 50; look++) {
      inner = await viewport();
      if (inner[0] !== before[0] || inner[1] !== before[1]) break;
    }
  }
  const [w, h] = await viewport();
  if (w !== width || h !== height) {
    throw new Error(`WebKit kept a ${w}×${h} viewport, not ${width}×${height}`);
  }
}

/** WebDriver's pointer button numbers. */
const BUTTONS = {left: 0, middle: 1, right: 2};

export class WebKitLauncher {
  /** @param {{concurrency?: number, viewport: {width: number, height: number}}} options */
  constructor({concurrency = 1, viewport}) {
    this.name = 'WebKit';
    this.type = 'webdriver'; // @web/test-runner-commands' sendKeys then calls sendKeys() below
    this.concurrency = concurrency;
    this.viewport = viewport;
    /** Browsers started, each `{wk, busy}`; a session takes a free one or starts one. */
    this.slots = [];
    /** sessionId → {slot, url} */
    this.sessions = new Map();
  }

  initialize(config) {
    this.config = config;
  }

  async startSession(sessionId, url) {
    let slot = this.slots.find((s) => !s.busy);
    if (!slot) {
      slot = {busy: true, wk: undefined};
      this.slots.push(slot);
      try {
        slot.wk = await launchWebKit();
      } catch (error) {
        this.slots.splice(this.slots.indexOf(slot), 1);
        throw error;
      }
    }
    slot.busy = true;
    this.sessions.set(sessionId, {slot, url});
    await setViewportSize(slot.wk.browser, this.viewport);
    await slot.wk.browser.navigateTo(url);
  }

  isActive(sessionId) {
    return this.sessions.has(sessionId);
  }

  getBrowserUrl(sessionId) {
    return this.sessions.get(sessionId)?.url;
  }

  /** The webdriverio browser running `sessionId`. */
  driverOf(sessionId) {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`No WebKit page for session ${sessionId}`);
    return session.slot.wk.browser;
  }

  async stopSession(sessionId) {
    const driver = this.driverOf(sessionId);
    const {slot} = this.sessions.get(sessionId);
    let testCoverage;
    try {
      testCoverage = await driver.execute(() => window.__coverage__);
    } catch {
      // the page navigated away
    }
    // An empty page stops whatever the test left running.
    await driver.navigateTo('about:blank');
    this.sessions.delete(sessionId);
    slot.busy = false;
    return {testCoverage: this.config?.coverage ? testCoverage : undefined};
  }

  startDebugSession() {
    throw new Error('WebKit has no debug session here: run it with PG_BROWSERS=chromium');
  }

  /**
   * `sendKeys` of @web/test-runner-commands: `type` arrives as its characters, `press` as one
   * key name.
   */
  sendKeys(sessionId, keys) {
    const actions =
      keys.length === 1 && [...keys[0]].length > 1
        ? pressActions(keys[0])
        : typeActions(keys.join(''));
    return this.driverOf(sessionId).performActions(actions);
  }

  /** `sendMouse` of @web/test-runner-commands: real pointer events, at viewport coordinates. */
  pointer(sessionId, actions) {
    const mouse = {type: 'pointer', id: 'mouse', parameters: {pointerType: 'mouse'}, actions};
    return this.driverOf(sessionId).performActions([mouse]);
  }

  sendMouseMove(sessionId, x, y) {
    return this.pointer(sessionId, [{type: 'pointerMove', duration: 0, x, y, origin: 'viewport'}]);
  }

  sendMouseClick(sessionId, x, y, button = 'left') {
    const b = BUTTONS[button];
    return this.pointer(sessionId, [
      {type: 'pointerMove', duration: 0, x, y, origin: 'viewport'},
      {type: 'pointerDown', button: b},
      {type: 'pointerUp', button: b},
    ]);
  }

  sendMouseDown(sessionId, button = 'left') {
    return this.pointer(sessionId, [{type: 'pointerDown', button: BUTTONS[button]}]);
  }

  sendMouseUp(sessionId, button = 'left') {
    return this.pointer(sessionId, [{type: 'pointerUp', button: BUTTONS[button]}]);
  }

  async resetMouse(sessionId) {
    await this.driverOf(sessionId).releaseActions();
    await this.sendMouseMove(sessionId, 0, 0);
  }

  setViewport(sessionId, size) {
    return setViewportSize(this.driverOf(sessionId), size);
  }

  async stop() {
    const slots = this.slots.splice(0);
    this.sessions.clear();
    await Promise.all(slots.map((s) => s.wk?.close()));
  }
}
