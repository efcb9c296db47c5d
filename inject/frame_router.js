// @ts-check
// dbg-bridge page client, part: frame router: host <-> same-origin iframes over postMessage envelopes. Shares one IIFE with the other parts (inject/__init__.py).

/** @param {HTMLIFrameElement} el */
function sameOrigin(el) {
  try {
    const w = el.contentWindow;
    // window.origin, not location.origin: a frame still on its initial about:blank reports location.origin
    // 'null' though it shares this page's origin; reading w.origin throws when the frame is cross-origin.
    return !!w && w.origin === window.origin;
  } catch (_) {
    return false;
  }
}

/** The document in a same-origin frame, or null. @param {HTMLIFrameElement} el @returns {Document|null} */
function docOf(el) {
  try { return el.contentDocument; } catch (_) { return null; }
}

/** @param {any} data @returns {data is Envelope} */
function isEnvelope(data) {
  return !!data && typeof data === 'object' && data.__dbg === 1 && typeof data.type === 'string' && data.type.startsWith('dbg_');
}

/**
 * @typedef {{id: string, el: HTMLIFrameElement, parent: string, ready: boolean, win: Window|null,
 *            readyWaiters: Array<() => void>, doc: Document|null}} FrameEntry
 */
const router = {
  /** @type {Map<string, FrameEntry>} */ frames: new Map(),
  /** @type {WeakMap<Element, string>} */ ids: new WeakMap(),
  /** @type {Map<string, {resolve: (v: any) => void, frameId: string, doc: Document|null}>} */ waiting: new Map(),
  /** @type {WeakSet<Document>} */ observed: new WeakSet(),
  next: 0,
  seq: 0,
  /** @type {(() => void) | null} */ onChange: null,
  changeTimer: 0,

  /** Walk every same-origin document from the host down; give each iframe a stable frameId. */
  scan() {
    const found = new Set();
    /** @param {Document} doc @param {string} parentId */
    const walk = (doc, parentId) => {
      this.observe(doc);
      for (const node of Array.from(doc.querySelectorAll('iframe, frame'))) {
        const el = /** @type {HTMLIFrameElement} */ (node);
        let id = this.ids.get(el);
        if (!id) {
          id = 'f' + this.next++;
          this.ids.set(el, id);
          el.addEventListener('load', () => this.frameLoaded(el));
        }
        found.add(id);
        let entry = this.frames.get(id);
        if (!entry) {
          entry = { id, el, parent: parentId, ready: false, win: null, readyWaiters: [], doc: null };
          this.frames.set(id, entry);
          this.inject(el);
        }
        entry.win = el.contentWindow;
        if (sameOrigin(el)) {
          try { if (el.contentDocument) walk(el.contentDocument, id); } catch (_) { /* navigating */ }
        }
      }
    };
    walk(document, 'host');
    for (const [id, entry] of this.frames) {
      if (!found.has(id)) {
        this.frames.delete(id);
        this.failFrame(id, 'frame_removed', 'Frame ' + id + ' was removed from the page while the call ran.');
        void entry;
      }
    }
    this.changed();
  },

  /** @param {Document} doc */
  observe(doc) {
    if (this.observed.has(doc)) return;
    this.observed.add(doc);
    const mo = new MutationObserver((records) => {
      for (const r of records) {
        for (const n of Array.from(r.addedNodes).concat(Array.from(r.removedNodes))) {
          if (n.nodeType === 1 && (/** @type {Element} */ (n).matches('iframe, frame') || /** @type {Element} */ (n).querySelector('iframe, frame'))) {
            this.scan();
            return;
          }
        }
      }
    });
    mo.observe(doc, { childList: true, subtree: true });
  },

  /** Put the client into a same-origin frame that does not have it yet. @param {HTMLIFrameElement} el */
  inject(el) {
    if (!sameOrigin(el)) return;
    try {
      const w = /** @type {any} */ (el.contentWindow);
      const doc = el.contentDocument;
      if (!w || !doc || w.__dbg) {
        if (w && w.__dbg) this.hello(el);
        return;
      }
      const src = el.getAttribute('src');
      if (doc.URL === 'about:blank' && src && !/^about:/.test(src)) {
        return; // the initial empty document: the real one is on its way and the load event injects
      }
      const s = doc.createElement('script');
      s.src = CLIENT_URL;
      (doc.head || doc.documentElement).appendChild(s);
    } catch (_) { /* navigating or sandboxed: the load event retries */ }
  },

  /** @param {HTMLIFrameElement} el */
  hello(el) {
    try { el.contentWindow && el.contentWindow.postMessage({ __dbg: 1, type: 'dbg_hello' }, window.origin); } catch (_) { /* gone */ }
  },

  /** @param {HTMLIFrameElement} el */
  frameLoaded(el) {
    const id = this.ids.get(el);
    const entry = id ? this.frames.get(id) : undefined;
    // The load event of the document whose client already said ready (a frame's first load) changes nothing.
    if (id && entry && !(entry.ready && entry.doc && docOf(el) === entry.doc)) {
      entry.ready = false;
      entry.win = el.contentWindow;
      this.failFrame(id, 'frame_reloaded', 'Frame ' + id + ' navigated or reloaded after the command was sent to it ' +
        '(outcome unknown: it may have run). Do not blindly retry code that is not idempotent: check the frame first.', docOf(el));
      this.inject(el);
    }
    this.scan();
  },

  /** A frame's client announced itself. @param {MessageEventSource|null} source */
  ready(source) {
    for (const entry of this.frames.values()) {
      if (entry.el.contentWindow === source) {
        entry.win = /** @type {Window} */ (source);
        entry.ready = true;
        entry.doc = docOf(entry.el);
        entry.readyWaiters.splice(0).forEach((f) => f());
        this.changed();
        return;
      }
    }
  },

  changed() {
    if (this.changeTimer || !this.onChange) return;
    this.changeTimer = window.setTimeout(() => {
      this.changeTimer = 0;
      if (this.onChange) this.onChange();
    }, 30);
  },

  /** @returns {FrameInfo[]} */
  frameList() {
    const out = [];
    for (const e of this.frames.values()) {
      const same = sameOrigin(e.el);
      let url = e.el.src || 'about:blank', title = '', origin = '';
      if (same) {
        try {
          url = /** @type {Window} */ (e.el.contentWindow).location.href;
          title = (e.el.contentDocument && e.el.contentDocument.title) || '';
          origin = window.origin;
        } catch (_) { /* navigating */ }
      } else {
        try { origin = new URL(url, location.href).origin; } catch (_) { origin = ''; }
      }
      out.push({ frameId: e.id, parent: e.parent, url: url.slice(0, 4000), title: title.slice(0, 4000), origin, crossOrigin: !same, ready: e.ready });
    }
    return out;
  },

  /** Fail the calls waiting on a frame (except those sent to `current`, its document now). @param {string} frameId @param {string} code @param {string} message @param {Document|null} [current] */
  failFrame(frameId, code, message, current) {
    for (const [rid, w] of this.waiting) {
      if (w.frameId === frameId && !(current && w.doc === current)) {
        this.waiting.delete(rid);
        w.resolve({ ok: false, error: { code, message } });
      }
    }
  },

  /** Run a command in frame `frameId` (host side). */
  async exec(/** @type {string} */ frameId, /** @type {string} */ command, /** @type {Record<string, any>} */ params, /** @type {number} */ timeoutMs, /** @type {AbortSignal|undefined} */ signal = undefined) {
    const entry = this.frames.get(frameId);
    if (!entry) return { ok: false, error: { code: 'unknown_page', message: 'This page has no frame ' + frameId + ' (it may have been removed). Call page_list.' } };
    if (!sameOrigin(entry.el)) {
      return { ok: false, error: { code: 'cross_origin_frame', message: 'Frame ' + frameId + ' is cross-origin; the client cannot reach into it. Load the client in that page and it appears as its own page.' } };
    }
    if (!entry.ready) {
      this.inject(entry.el);
      this.hello(entry.el);
      const ok = await new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), Math.min(timeoutMs, FRAME_READY_WAIT_MS));
        entry.readyWaiters.push(() => { clearTimeout(t); resolve(true); });
      });
      if (!ok) {
        return { ok: false, error: { code: 'frame_not_ready', message: 'Frame ' + frameId + ' has no running client (still loading, or its CSP blocks the client script). Retry shortly, or check the frame in page_list.' } };
      }
    }
    const requestId = 'r' + ++this.seq;
    return new Promise((resolve) => {
      // Bounded like the bridge's pending table: a frame that never answers frees its entry when the call's time
      // is up (plus a little, so the frame's own timeout error wins when it has one).
      const timer = setTimeout(() => {
        if (!this.waiting.delete(requestId)) return;
        resolve({ ok: false, error: { code: 'page_timeout', message: 'Frame ' + frameId + ' did not answer within ' + Math.round(timeoutMs / 1000) + ' s. Check the frame (a busy loop or an open dialog blocks it), or retry with a larger timeout.' } });
      }, timeoutMs + 250);
      const onAbort = () => {
        try { /** @type {Window} */ (entry.win).postMessage({ __dbg: 1, type: 'dbg_cancel', requestId }, window.origin); } catch (_) { /* gone */ }
        const w = this.waiting.get(requestId);
        if (w) { this.waiting.delete(requestId); w.resolve({ ok: false, error: { code: 'cancelled', message: 'The call was cancelled.' } }); }
      };
      if (signal) signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(requestId, { resolve: (/** @type {any} */ v) => { clearTimeout(timer); if (signal) signal.removeEventListener('abort', onAbort); resolve(v); }, frameId, doc: docOf(entry.el) });
      /** @type {Envelope} */
      const env = { __dbg: 1, type: 'dbg_exec', payload: { command, params }, requestId, _f: frameId };
      try {
        /** @type {Window} */ (entry.win).postMessage(env, window.origin);
      } catch (e) {
        this.waiting.delete(requestId);
        resolve({ ok: false, error: { code: 'frame_not_ready', message: 'Could not reach frame ' + frameId + ': ' + String(e) } });
      }
    });
  },

  /** @param {MessageEvent} ev */
  onMessage(ev) {
    if (ev.origin !== window.origin || !isEnvelope(ev.data)) return;
    const env = ev.data;
    if (env.type === 'dbg_ready') this.ready(ev.source);
    else if (env.type === 'dbg_tools_changed' && ev.source) { // a frame's WebMCP tools changed: the tab's list is resent
      webmcp.reporting.add(/** @type {Window} */ (ev.source));
      webmcp.changed();
    }
    else if (env.type === 'dbg_exec_result' && env.requestId) {
      const w = this.waiting.get(env.requestId);
      const entry = w && this.frames.get(w.frameId);
      if (!w || !entry || entry.el.contentWindow !== ev.source) return; // not from the frame we asked
      this.waiting.delete(env.requestId);
      w.resolve(env.payload);
    }
  },
};
