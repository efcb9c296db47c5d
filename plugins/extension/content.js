// @ts-check
/**
 * Content script (isolated world) for the origins enabled in the popup: adds the bridge's page client to the page
 * (a <script> from <bridge>/inject/dbg_client.js, data-attach="extension"), hands it a per-load nonce, relays its
 * screenshot and trusted-input requests to the service worker and keeps its connection state for the popup.
 *
 * The bridge's panel (<dbg-human>: consent, questions, takeover and record cards) takes only a person's hand. This
 * script runs in an isolated world the page's scripts cannot reach, so it guards the panel against the trusted input
 * it relays itself: a click or key aimed at the panel is refused before it is sent, and while input it relayed is
 * under way (and a moment after) every event that reaches the panel is stopped before any page listener sees it.
 */
(() => {
  const self = /** @type {any} */ (globalThis);
  if (self.__dbgExtContent) return; // registered and executed twice
  self.__dbgExtContent = true;
  const DEFAULT_BRIDGE = 'http://127.0.0.1:7878';
  /** @type {Record<string, any>} */
  let status = { state: 'off' };

  chrome.runtime.onMessage.addListener((msg, _sender, reply) => {
    if (msg && msg.type === 'status' && window === window.top) reply(Object.assign({ url: location.href }, status));
    return false;
  });

  // ---- the panel is the human's: no relayed input reaches it ------------------------------------------------
  const PANEL = 'DBG-HUMAN';
  let relaying = 0;
  let relayedUntil = 0;
  /** @param {Event} ev */
  const guard = (ev) => {
    if (relaying === 0 && performance.now() >= relayedUntil) return;
    if (!ev.composedPath().some((n) => /** @type {any} */ (n) && /** @type {any} */ (n).nodeName === PANEL)) return;
    ev.stopImmediatePropagation();
    ev.preventDefault();
  };
  for (const type of ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'click', 'dblclick', 'auxclick', 'keydown',
    'keypress', 'keyup', 'beforeinput', 'input', 'change', 'submit']) window.addEventListener(type, guard, true);

  /** Why these input steps must not be sent (they would land on the panel), or null. @param {any[]} steps */
  function aimedAtPanel(steps) {
    for (const step of steps) {
      const kind = String(step && step.kind);
      if (kind === 'click' || kind === 'move') {
        const at = document.elementFromPoint(Number(step.x), Number(step.y));
        if (at && at.nodeName === PANEL) return 'the point (' + step.x + ', ' + step.y + ') is on the dbg-bridge panel';
      } else {
        const focused = document.activeElement;
        if (focused && focused.nodeName === PANEL) return 'the keyboard focus is in the dbg-bridge panel';
      }
    }
    return null;
  }

  /** The page's own client injects itself into same-origin frames: do not add a second one. */
  function inSameOriginFrame() {
    try { return window !== window.parent && window.parent.location.origin === location.origin; } catch (_) { return false; }
  }

  async function start() {
    const got = await chrome.storage.local.get({ bridge: DEFAULT_BRIDGE, origins: [] });
    const bridge = String(got.bridge).replace(/\/+$/, '');
    if (!Array.isArray(got.origins) || !got.origins.includes(location.origin)) return; // disabled since registration
    if (inSameOriginFrame()) { status = { state: 'frame' }; return; }
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    const nonce = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

    window.addEventListener('message', (ev) => {
      const m = ev.data;
      if (ev.source !== window || !m || m.__dbgExt !== nonce || m.dir !== 'up') return;
      if (m.type === 'status') {
        status = { state: String(m.state), channel: String(m.channel || ''), pageId: m.pageId || null, bridge };
      } else if (m.type === 'capture' || m.type === 'input' || m.type === 'open') {
        const answer = (/** @type {Record<string, any>} */ out) => window.postMessage(Object.assign({ __dbgExt: nonce, dir: 'down', id: m.id }, out), location.origin);
        /** @type {Record<string, any>} */
        const ask = m.type === 'capture' ? { type: 'capture', box: m.box || null, viewport: m.viewport, maxChars: m.maxChars }
          : m.type === 'open' ? { type: 'open', url: String(m.url || '') }
            : { type: 'input', steps: Array.isArray(m.steps) ? m.steps : [] };
        // `open` goes to the service worker, which opens only the asking tab's own origin
        const refused = ask.type === 'input' ? aimedAtPanel(/** @type {any[]} */ (ask.steps)) : null;
        if (refused) {
          answer({ ok: false, error: { code: 'human_only', message: 'Refused: ' + refused + ', whose cards only the ' +
            'human answers (consent, questions, takeovers, recording). Ask the human (user_ask), or act elsewhere.' } });
          return;
        }
        const input = ask.type === 'input';
        if (input) relaying++;
        const done = () => { if (input) { relaying--; relayedUntil = performance.now() + 300; } };
        chrome.runtime.sendMessage(ask)
          .then((out) => { done(); answer(out || { ok: false, error: { code: 'not_available', message: 'The extension gave no answer.' } }); },
            (e) => { done(); answer({ ok: false, error: { code: 'not_available', message: 'The extension is not reachable (reloaded?): ' + String(e && e.message || e) + '. Reload the tab.' } }); });
      }
    });

    if (!document.documentElement) await new Promise((r) => document.addEventListener('readystatechange', r, { once: true }));
    const s = document.createElement('script');
    s.src = bridge + '/inject/dbg_client.js';
    s.dataset.bridge = bridge;
    s.dataset.attach = 'extension';
    s.dataset.dbgExt = nonce;
    s.onload = () => { s.remove(); if (status.state === 'loading') status = { state: 'connecting', bridge }; };
    s.onerror = () => { s.remove(); status = { state: 'unreachable', bridge }; };
    status = { state: 'loading', bridge };
    (document.head || document.documentElement).appendChild(s);
  }
  start().catch((e) => { status = { state: 'error', message: String(e && e.message || e) }; });
})();
