// @ts-check
/**
 * The service worker: keeps the content script registered for the enabled origins, takes screenshots for the page
 * client (content script -> here -> chrome.tabs.captureVisibleTab -> a PNG, cropped to an element's box), and sends
 * trusted input to the client's tab when it asks (chrome.debugger: Input.dispatchMouseEvent / dispatchKeyEvent /
 * insertText, attached on demand and detached when idle).
 */
import { load, register } from './sites.js';

/** Chrome allows 2 captureVisibleTab calls per second; captures run one at a time, at least this far apart. */
const CAPTURE_GAP_MS = 520;
let lastCapture = 0;
/** @type {Promise<any>} */
let queue = Promise.resolve();

const sync = () => load().then(({ origins }) => register(origins)).catch((e) => console.warn('dbg-bridge: register failed', e));
chrome.runtime.onInstalled.addListener(() => { void sync(); });
chrome.runtime.onStartup.addListener(() => { void sync(); });

/** @param {string} code @param {string} message */
function fail(code, message) {
  return Object.assign(new Error(message), { code });
}

/** @param {number} ms */
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** @param {Blob} blob */
async function base64Of(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + 0x8000)));
  return btoa(bin);
}

/**
 * @typedef {{x: number, y: number, width: number, height: number}} Box
 * @typedef {{box: Box|null, viewport: {width: number, height: number}, maxChars: number}} CaptureRequest
 */

/** @param {chrome.tabs.Tab} tab @param {CaptureRequest} req */
async function capture(tab, req) {
  const now = await chrome.tabs.get(/** @type {number} */ (tab.id));
  if (!now.active) {
    throw fail('not_visible', 'This tab is not the visible tab of its window, and Chrome can only capture what is shown. ' +
      'Bring the tab to the front (or open the page in its own window) and retry.');
  }
  const wait = lastCapture + CAPTURE_GAP_MS - Date.now();
  if (wait > 0) await pause(wait);
  let url = '';
  for (let attempt = 0; ; attempt++) {
    try {
      url = await chrome.tabs.captureVisibleTab(now.windowId, { format: 'png' });
      break;
    } catch (e) {
      const text = String(/** @type {Error} */ (e).message || e);
      if (attempt < 3 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(text)) { await pause(CAPTURE_GAP_MS); continue; }
      throw fail('not_available', 'chrome.tabs.captureVisibleTab failed: ' + text);
    } finally {
      lastCapture = Date.now();
    }
  }
  const bitmap = await createImageBitmap(await (await fetch(url)).blob());
  const vw = Math.max(1, Number(req.viewport && req.viewport.width) || bitmap.width);
  const vh = Math.max(1, Number(req.viewport && req.viewport.height) || bitmap.height);
  const scale = bitmap.width / vw; // image px per CSS px: devicePixelRatio (zoom included)
  const box = req.box || { x: 0, y: 0, width: vw, height: vh };
  const sx = Math.max(0, Math.round(box.x * scale)), sy = Math.max(0, Math.round(box.y * scale));
  const sw = Math.max(1, Math.min(bitmap.width - sx, Math.round(box.width * scale)));
  const sh = Math.max(1, Math.min(bitmap.height - sy, Math.round(box.height * scale)));
  const maxChars = Math.max(10000, Number(req.maxChars) || 500000);
  let factor = 1;
  let data = !req.box ? url.slice(url.indexOf(',') + 1) : '';
  let width = bitmap.width, height = bitmap.height;
  for (let tries = 0; !data || data.length > maxChars; tries++) {
    if (data) {
      if (tries > 6) throw fail('result_too_large', 'The screenshot stays over ' + maxChars + ' characters even scaled down; capture one element.');
      factor *= Math.sqrt(maxChars / data.length) * 0.9; // too big for the page channel: scale down and encode again
    }
    width = Math.max(1, Math.round(sw * factor));
    height = Math.max(1, Math.round(sh * factor));
    const canvas = new OffscreenCanvas(width, height);
    const g = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
    g.drawImage(bitmap, sx, sy, sw, sh, 0, 0, width, height);
    data = await base64Of(await canvas.convertToBlob({ type: 'image/png' }));
  }
  bitmap.close();
  return { data, width, height, scale: Math.round(scale * factor * 1000) / 1000, devicePixelRatio: Math.round(scale * 1000) / 1000,
    box: { x: box.x, y: box.y, width: box.width, height: box.height }, viewport: { width: vw, height: vh }, scaledDown: factor < 1 };
}

// ---- trusted input: chrome.debugger on the tab that asked -------------------------------------------------

/** Detach this long after a tab's last input (Chrome shows a "started debugging" bar while attached). */
const DEBUGGER_IDLE_MS = 10000;
/** @type {Map<number, ReturnType<typeof setTimeout> | 0>} tabs we are attached to -> their idle timer */
const attached = new Map();
/** @type {Promise<any>} */
let inputQueue = Promise.resolve();

chrome.debugger.onDetach.addListener((source) => {
  if (source.tabId == null) return;
  clearTimeout(attached.get(source.tabId) || 0);
  attached.delete(source.tabId); // closed, navigated away from, or the human pressed "Cancel" on the bar
});

/** @param {number} tabId */
async function attach(tabId) {
  if (attached.has(tabId)) return;
  try {
    await chrome.debugger.attach({ tabId }, '1.3');
  } catch (e) {
    const text = String(/** @type {Error} */ (e).message || e);
    // still attached from before this worker restarted: keep using it
    if (!/already attached/i.test(text)) {
      throw fail('not_available', 'chrome.debugger could not attach to this tab (' + text + '). Trusted input needs the ' +
        'extension\'s "debugger" permission and a normal web page; close other debuggers of this tab and retry.');
    }
  }
  attached.set(tabId, 0);
}

/** @param {number} tabId */
function detachLater(tabId) {
  if (!attached.has(tabId)) return;
  clearTimeout(attached.get(tabId) || 0);
  attached.set(tabId, setTimeout(() => {
    attached.delete(tabId);
    chrome.debugger.detach({ tabId }).catch(() => null);
  }, DEBUGGER_IDLE_MS));
}

/** Modifier names -> CDP modifier bits and their own keys. */
const MODIFIERS = /** @type {Record<string, {bit: number, key: string, code: string, keyCode: number}>} */ ({
  alt: { bit: 1, key: 'Alt', code: 'AltLeft', keyCode: 18 },
  control: { bit: 2, key: 'Control', code: 'ControlLeft', keyCode: 17 },
  ctrl: { bit: 2, key: 'Control', code: 'ControlLeft', keyCode: 17 },
  meta: { bit: 4, key: 'Meta', code: 'MetaLeft', keyCode: 91 },
  cmd: { bit: 4, key: 'Meta', code: 'MetaLeft', keyCode: 91 },
  shift: { bit: 8, key: 'Shift', code: 'ShiftLeft', keyCode: 16 },
});
/** Named keys: [windows key code, code, text]. */
const NAMED_KEYS = /** @type {Record<string, [number, string, string]>} */ ({
  Enter: [13, 'Enter', '\r'], Tab: [9, 'Tab', ''], Escape: [27, 'Escape', ''], Backspace: [8, 'Backspace', ''],
  Delete: [46, 'Delete', ''], Space: [32, 'Space', ' '], ArrowLeft: [37, 'ArrowLeft', ''], ArrowUp: [38, 'ArrowUp', ''],
  ArrowRight: [39, 'ArrowRight', ''], ArrowDown: [40, 'ArrowDown', ''], Home: [36, 'Home', ''], End: [35, 'End', ''],
  PageUp: [33, 'PageUp', ''], PageDown: [34, 'PageDown', ''], Insert: [45, 'Insert', ''],
});

/** CDP key fields of one key name ('a', 'Enter', 'F5', ' '), or null when it is not a key we know. @param {string} key */
function keyInfo(key) {
  if (key === ' ') key = 'Space';
  if (NAMED_KEYS[key]) {
    const [keyCode, code, text] = NAMED_KEYS[key];
    return { key: key === 'Space' ? ' ' : key, code, keyCode, text };
  }
  const f = /^F([1-9]|1[0-2])$/.exec(key);
  if (f) return { key, code: key, keyCode: 111 + Number(f[1]), text: '' };
  if (key.length === 1 && key >= ' ' && key <= '~') {
    const upper = key.toUpperCase();
    const code = /[A-Z]/.test(upper) ? 'Key' + upper : /[0-9]/.test(key) ? 'Digit' + key : '';
    return { key, code, keyCode: /[A-Z0-9]/.test(upper) ? upper.charCodeAt(0) : 0, text: key };
  }
  return null;
}

/** @param {number} tabId @param {string} method @param {Record<string, any>} params */
function send(tabId, method, params) {
  return chrome.debugger.sendCommand({ tabId }, method, params);
}

/** keyDown (+ the text it types) and keyUp of one key. @param {number} tabId @param {{key: string, code: string, keyCode: number, text: string}} k @param {number} modifiers */
async function key(tabId, k, modifiers) {
  const text = modifiers & ~8 ? '' : k.text; // with Control/Alt/Meta held a key types nothing
  const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode, modifiers };
  await send(tabId, 'Input.dispatchKeyEvent', Object.assign({ type: text ? 'keyDown' : 'rawKeyDown', text, unmodifiedText: text }, base));
  await send(tabId, 'Input.dispatchKeyEvent', Object.assign({ type: 'keyUp' }, base));
}

/** A chord like 'Enter', 'Control+a', 'Shift+Tab': modifiers down, the key, modifiers up. @param {number} tabId @param {string} chord */
async function press(tabId, chord) {
  const parts = chord === '+' ? ['+'] : chord.split('+');
  const name = parts.pop() || '';
  const mods = parts.map((m) => MODIFIERS[m.toLowerCase()]);
  const k = keyInfo(name);
  if (!k || mods.some((m) => !m)) {
    throw fail('bad_action', 'Unknown key chord ' + JSON.stringify(chord) + ': use modifiers Control, Shift, Alt, Meta and a key ' +
      '(a character, Enter, Tab, Escape, Backspace, Delete, Space, Arrow*, Home, End, PageUp, PageDown, F1-F12).');
  }
  let bits = 0;
  for (const m of mods) {
    bits |= m.bit;
    await send(tabId, 'Input.dispatchKeyEvent', { type: 'rawKeyDown', key: m.key, code: m.code, windowsVirtualKeyCode: m.keyCode, modifiers: bits });
  }
  if (bits & 8 && k.text.length === 1) k.key = k.text = k.text.toUpperCase();
  await key(tabId, k, bits);
  for (const m of mods.reverse()) {
    bits &= ~m.bit;
    await send(tabId, 'Input.dispatchKeyEvent', { type: 'keyUp', key: m.key, code: m.code, windowsVirtualKeyCode: m.keyCode, modifiers: bits });
  }
}

/**
 * Run the client's input steps on its tab. An empty list only attaches (the client measures after the debugging bar
 * appeared). Steps: {kind: 'click', x, y, count} | {kind: 'move', x, y} | {kind: 'drag', x, y, x2, y2} | {kind: 'type', text}
 * | {kind: 'insert', text} | {kind: 'press', chord}; x and y in CSS px of the tab's viewport.
 * @param {number} tabId @param {any[]} steps
 */
async function input(tabId, steps) {
  if (!Array.isArray(steps) || steps.length > 50) throw fail('bad_action', 'Input steps must be a list of at most 50.');
  await attach(tabId);
  try {
    for (const step of steps) {
      const kind = String(step && step.kind);
      if (kind === 'click' || kind === 'move') {
        const x = Number(step.x), y = Number(step.y);
        if (!Number.isFinite(x) || !Number.isFinite(y)) throw fail('bad_action', 'A click needs finite x and y.');
        await send(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none', buttons: 0 });
        if (kind === 'move') continue;
        const count = Math.max(1, Math.min(3, Math.floor(Number(step.count) || 1)));
        for (let n = 1; n <= count; n++) {
          await send(tabId, 'Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: n });
          await send(tabId, 'Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: n });
        }
      } else if (kind === 'drag') {
        // a press, moves at a hand's pace with the button held (thresholds), a rest on the end point (libraries that
        // sample the pointer on a timer), the release; a pointer drag only (an HTML5 drag is the desktop route's)
        const [x, y, x2, y2] = [step.x, step.y, step.x2, step.y2].map(Number);
        if (![x, y, x2, y2].every(Number.isFinite)) throw fail('bad_action', 'A drag needs finite x, y, x2 and y2.');
        await send(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none', buttons: 0 });
        await send(tabId, 'Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 });
        for (let i = 1; i <= 10; i++) {
          await send(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x: x + (x2 - x) * i / 10, y: y + (y2 - y) * i / 10, button: 'left', buttons: 1 });
          await new Promise((r) => setTimeout(r, 20));
        }
        await new Promise((r) => setTimeout(r, 120));
        await send(tabId, 'Input.dispatchMouseEvent', { type: 'mouseReleased', x: x2, y: y2, button: 'left', buttons: 0, clickCount: 1 });
      } else if (kind === 'type' || kind === 'insert') {
        const text = String(step.text == null ? '' : step.text);
        if (text.length > 100000) throw fail('bad_action', 'At most 100000 characters of text per action.');
        if (kind === 'insert') { if (text) await send(tabId, 'Input.insertText', { text }); continue; }
        for (const ch of text) {
          // keys for what a US keyboard types (keydown/keypress/input/keyup); anything else is inserted as text
          const k = ch === '\n' ? keyInfo('Enter') : keyInfo(ch);
          if (k) await key(tabId, k, 0); else await send(tabId, 'Input.insertText', { text: ch });
        }
      } else if (kind === 'press') {
        await press(tabId, String(step.chord || 'Enter'));
      } else {
        throw fail('bad_action', 'Unknown input step ' + JSON.stringify(kind) + '.');
      }
    }
  } catch (e) {
    const err = /** @type {any} */ (e);
    if (err && err.code) throw err;
    throw fail('not_available', 'chrome.debugger input failed: ' + String(err && err.message || err) + '. Retry; if it keeps failing, reload the tab.');
  } finally {
    detachLater(tabId);
  }
  return { steps: steps.length, trusted: true };
}

/**
 * page_open: a window of the asking tab's own origin, not focused (the human's tab stays in front, and the agent's
 * tab is the visible tab of its own window, so it renders, takes input and can be captured). Only the asking tab's
 * origin, as Chrome knows the tab (the page's own scripts can post to the content script).
 * @param {chrome.tabs.Tab} tab @param {string} url
 */
async function open(tab, url) {
  const from = new URL(String(tab.url || ''));
  const to = new URL(url);
  if (to.origin !== from.origin || !/^https?:$/.test(to.protocol)) {
    throw fail('bad_arguments', 'A window opens only at the asking tab\'s own origin (' + from.origin + ').');
  }
  const win = await chrome.windows.create({ url: to.href, focused: false });
  const opened = win && win.tabs && win.tabs[0];
  return { windowId: win ? win.id : null, tabId: opened ? opened.id : null };
}

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  // only the content script (in a tab, not an extension page) asks for captures and input
  if (!msg || (msg.type !== 'capture' && msg.type !== 'input' && msg.type !== 'open') || !sender.tab || sender.id !== chrome.runtime.id ||
      String(sender.url).startsWith(chrome.runtime.getURL(''))) return false;
  const tab = /** @type {chrome.tabs.Tab} */ (sender.tab);
  if (msg.type === 'input' && sender.frameId !== 0) {
    reply({ ok: false, error: { code: 'not_available', message: 'Trusted input is sent from the top page of the tab only, not from a frame.' } });
    return false;
  }
  if (msg.type === 'open') {
    open(tab, String(msg.url || '')).then((result) => reply({ ok: true, result }),
      (e) => reply({ ok: false, error: { code: e.code || 'not_available', message: String(e.message || e) } }));
    return true;
  }
  // input only ever reaches the tab that asked; one request at a time
  const run = msg.type === 'input' ? inputQueue.then(() => input(/** @type {number} */ (tab.id), msg.steps))
    : queue.then(() => capture(tab, msg));
  if (msg.type === 'input') inputQueue = run.catch(() => null); else queue = run.catch(() => null);
  run.then((result) => reply({ ok: true, result }),
    (e) => reply({ ok: false, error: { code: e.code || 'not_available', message: String(e.message || e) } }));
  return true; // answers asynchronously
});
