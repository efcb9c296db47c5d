// @ts-check
// dbg-bridge page client, part: screenshots through the Chrome extension (plugins/extension). Shares one IIFE with the other parts (inject/__init__.py).

// The extension's content script (isolated world) handed this client a per-load nonce on its script tag; requests
// go to it by window.postMessage, it asks the service worker, which calls chrome.tabs.captureVisibleTab. Page
// scripts share this main world, so the nonce keeps out other windows and frames, not the page itself.

/** @typedef {{x: number, y: number, width: number, height: number}} Box */
const ext = {
  seq: 0,
  /** @type {Map<number, {resolve: (v: any) => void, reject: (e: any) => void}>} */ waiting: new Map(),
  /** @param {Record<string, any>} msg */
  post(msg) {
    window.postMessage(Object.assign({ __dbgExt: EXT_NONCE, dir: 'up' }, msg), window.origin);
  },
  install() {
    if (!EXT_NONCE) return;
    window.addEventListener('message', (ev) => {
      const m = ev.data;
      if (ev.source !== window || !m || m.__dbgExt !== EXT_NONCE || m.dir !== 'down') return;
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.result);
      else w.reject(new DbgError(String((m.error && m.error.code) || 'not_available'), String((m.error && m.error.message) || 'The extension failed.')));
    });
  },
  /** @param {string} type @param {Record<string, any>} payload @param {number} timeoutMs */
  request(type, payload, timeoutMs) {
    if (type === 'input') return hand.bridgeInput(() => this.send(type, payload, timeoutMs)); // the panel is deaf meanwhile
    return this.send(type, payload, timeoutMs);
  },
  /** @param {string} type @param {Record<string, any>} payload @param {number} timeoutMs @returns {Promise<any>} */
  send(type, payload, timeoutMs) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiting.delete(id);
        reject(new DbgError('not_available', 'The dbg-bridge extension did not answer within ' + timeoutMs / 1000 +
          ' s (reloaded or disabled?). Reload the tab, or check the extension in chrome://extensions.'));
      }, timeoutMs);
      this.waiting.set(id, { resolve: (v) => { clearTimeout(t); resolve(v); }, reject: (e) => { clearTimeout(t); reject(e); } });
      this.post(Object.assign({ type, id }, payload));
    });
  },
};

/** The element's box in this window's viewport (scrolled into view first when it is not fully visible). @param {Element} el @returns {Promise<Box>} */
async function visibleBox(el) {
  let r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) throw new DbgError('not_visible', refs.of(el) + ' has no size on screen (hidden or empty); nothing to capture.');
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    el.scrollIntoView({ block: 'center', inline: 'center' });
    await settleBounded();
    r = el.getBoundingClientRect();
  }
  return clipBox({ x: r.left, y: r.top, width: r.width, height: r.height }, innerWidth, innerHeight, refs.of(el));
}

/** @param {Box} b @param {number} w @param {number} h @param {string} what @returns {Box} */
function clipBox(b, w, h, what) {
  const x = Math.max(0, b.x), y = Math.max(0, b.y);
  const box = { x, y, width: Math.min(w, b.x + b.width) - x, height: Math.min(h, b.y + b.height) - y };
  if (box.width <= 0 || box.height <= 0) throw new DbgError('not_visible', what + ' is outside the visible area; scroll it into view (page_act scroll) and retry.');
  return box;
}

/** A box in this frame's viewport -> the same box in the host window's viewport (same-origin frames only). @param {Box} b */
function toHostBox(b) {
  /** @type {Window} */
  let w = window;
  let box = b;
  while (w !== w.parent && !(/** @type {any} */ (w).__dbg && /** @type {any} */ (w).__dbg.role === 'host')) {
    const fe = w.frameElement;
    if (!fe) throw new DbgError('not_available', 'This frame is not reachable from its page (cross-origin parent); screenshot the page that holds it.');
    const r = fe.getBoundingClientRect();
    const cs = getComputedStyle(fe);
    const p = /** @type {Window} */ (w.parent);
    box = clipBox({ x: box.x + r.left + fe.clientLeft + parseFloat(cs.paddingLeft || '0'), y: box.y + r.top + fe.clientTop + parseFloat(cs.paddingTop || '0'),
      width: box.width, height: box.height }, p.innerWidth, p.innerHeight, 'This frame');
    w = p;
  }
  return box;
}

/** Capture the visible tab (or `box` of it, CSS px) through the extension. @param {Box|null} box @param {number} maxResult */
async function capture(box, maxResult) {
  if (!EXT_NONCE) {
    throw new DbgError('not_available', 'Real screenshots need the dbg-bridge Chrome extension: load plugins/extension ' +
      'unpacked (chrome://extensions, Developer mode, Load unpacked), enable this site in its popup, and the tab ' +
      'reloads with the client attached by the extension. This client came from a script tag or a plugin, which ' +
      'cannot capture pixels (with the extension enabled too, the page\'s own tag loaded first: drop it). ' +
      'Meanwhile page_snapshot shows the structure.');
  }
  if (window !== window.top) {
    throw new DbgError('not_available', 'This page runs inside a frame of another origin; the extension captures the ' +
      'whole tab and cannot place this frame in it. Screenshot the top page of the tab instead.');
  }
  const shot = await ext.request('capture', { box, viewport: { width: innerWidth, height: innerHeight }, maxChars: maxResult - 2048 }, 20000);
  const size = String(shot && shot.data || '').length;
  if (size > maxResult) throw new DbgError('result_too_large', 'The screenshot is ' + size + ' characters of base64, over the ' + maxResult + '-character cap. Capture one element (ref or selector).', size);
  return shot;
}
