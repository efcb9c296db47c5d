// @ts-check
/**
 * The service worker: keeps the content script registered for the enabled origins, and takes screenshots for the
 * page client (content script -> here -> chrome.tabs.captureVisibleTab -> a PNG, cropped to an element's box).
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

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  // only the content script (in a tab, not an extension page) asks for captures
  if (!msg || msg.type !== 'capture' || !sender.tab || sender.id !== chrome.runtime.id || String(sender.url).startsWith(chrome.runtime.getURL(''))) return false;
  const run = queue.then(() => capture(/** @type {chrome.tabs.Tab} */ (sender.tab), msg));
  queue = run.catch(() => null);
  run.then((result) => reply({ ok: true, result }),
    (e) => reply({ ok: false, error: { code: e.code || 'not_available', message: String(e.message || e) } }));
  return true; // answers asynchronously
});
