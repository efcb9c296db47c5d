// @ts-check
/**
 * dbg-bridge page client. Plain JS, no build step: load it with
 *   <script src="http://127.0.0.1:7878/inject/dbg_client.js"></script>
 * Options (data-* on the script tag, or window.__DBG_CONFIG): bridge (URL), channel ('auto' | 'ws' | 'sse'),
 * attach (label shown in page_list), shard ('auto' | 'off': give each tab's SSE stream its own *.localhost host).
 *
 * Sections: constants & types, result rendering, COMMANDS, frame router, transport (BridgeClient), boot.
 */
(function () {
  'use strict';

  // ---- constants & types --------------------------------------------------------------------------------

  const PROTOCOL_VERSION = 1;
  const VERSION = '0.1.0';
  const STORAGE_KEY = '__dbg_id';
  const LEAVING_KEY = '__dbg_leaving';
  const MAX_STRING = 100000;
  const MAX_ITEMS = 1000;
  const MAX_DEPTH = 12;
  const FRAME_READY_WAIT_MS = 5000;
  /** A tab that fell back to SSE tries the WebSocket again on a reconnect this long after the failure. */
  const WS_RETRY_MS = 60000;

  /**
   * Wire shapes; mirrored from bridge/protocol.py (PROTOCOL_VERSION 1).
   * @typedef {{frameId: string, parent: string|null, url: string, title: string, origin: string,
   *            crossOrigin: boolean, ready: boolean}} FrameInfo
   * @typedef {{v: number, instanceId: string|null, secret: string|null, reclaim: boolean, url: string,
   *            title: string, origin: string, port: number|null, attach: string, frames: FrameInfo[]}} RegisterRequest
   * @typedef {{type: 'registered', v: number, instanceId: string, secret: string, ttl: number,
   *            heartbeat: number, maxResult: number, renamed: boolean}} RegisterReply
   * @typedef {{type: 'exec', requestId: string, frameId: string, command: string,
   *            params: Record<string, any>, timeout: number}} ExecFrame
   * @typedef {{type: 'ping'}} PingFrame
   * @typedef {{code: string, message: string, stack?: string, size?: number}} ErrorInfo
   * @typedef {{type: 'result', requestId: string, ok: boolean, result?: any, error?: ErrorInfo}} ResultMsg
   * @typedef {{type: 'frames', frames: FrameInfo[], url?: string, title?: string}} FramesMsg
   * @typedef {{type: 'bye'}} ByeMsg
   * @typedef {ResultMsg | FramesMsg | ByeMsg} UpMessage
   * @typedef {{__dbg: 1, type: string, payload?: any, requestId?: string, _f?: string}} Envelope
   * @typedef {{frameId: string, role: 'host'|'frame', maxResult: number}} CommandContext
   * @typedef {(params: Record<string, any>, ctx: CommandContext) => Promise<any>} Command
   */

  if (/** @type {any} */ (window).__dbg && /** @type {any} */ (window).__dbg.version) return; // loaded twice

  const script = /** @type {HTMLScriptElement|null} */ (document.currentScript);
  const scriptUrl = script && script.src ? new URL(script.src, location.href) : null;
  const userConfig = /** @type {any} */ (window).__DBG_CONFIG || {};
  /** @param {string} name @param {string} fallback */
  function option(name, fallback) {
    const fromTag = script && script.dataset ? script.dataset[name] : undefined;
    const fromQuery = scriptUrl ? scriptUrl.searchParams.get(name) : null;
    return String(userConfig[name] || fromTag || fromQuery || fallback);
  }
  const BRIDGE = option('bridge', scriptUrl ? scriptUrl.origin : 'http://127.0.0.1:7878').replace(/\/+$/, '');
  const CLIENT_URL = scriptUrl ? scriptUrl.href : BRIDGE + '/inject/dbg_client.js';
  /** Set when the dbg-bridge Chrome extension loaded this client: the per-load nonce of its content script. */
  const EXT_NONCE = (script && script.dataset && script.dataset.dbgExt) || '';

  /** An error with a code the bridge shows the agent. */
  class DbgError extends Error {
    /** @param {string} code @param {string} message @param {number} [size] */
    constructor(code, message, size) {
      super(message);
      this.code = code;
      this.size = size;
    }
  }

  // ---- result rendering: any JS value -> a bounded JSON value -----------------------------------------

  /** @param {Element} el */
  function describeElement(el) {
    let s = '<' + el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
    if (cls.length) s += '.' + cls.slice(0, 3).join('.');
    s += '>';
    const text = (el.textContent || '').replace(/\s+/g, ' ').trim();
    if (text) s += ' ' + JSON.stringify(text.length > 80 ? text.slice(0, 80) + '…' : text);
    return '[Element ' + s + ']';
  }

  /**
   * @param {any} v
   * @param {number} depth
   * @param {Map<any, string>} seen object -> path where it was first met (for cycles)
   * @param {string} path
   * @returns {any}
   */
  function render(v, depth, seen, path) {
    switch (typeof v) {
      case 'undefined': return '[undefined]';
      case 'number': return Number.isFinite(v) ? v : '[' + String(v) + ']';
      case 'bigint': return String(v) + 'n';
      case 'symbol': return '[' + String(v) + ']';
      case 'function': return '[Function: ' + (v.name || 'anonymous') + ']';
      case 'string':
        return v.length > MAX_STRING ? v.slice(0, MAX_STRING) + '…[truncated: ' + v.length + ' chars in all]' : v;
      case 'boolean': return v;
    }
    if (v === null) return null;
    if (seen.has(v)) return '[Circular ~' + seen.get(v) + ']';
    if (depth > MAX_DEPTH) return '[Object: depth limit]';
    if (typeof Node !== 'undefined' && v instanceof Node) {
      if (v.nodeType === 1) return describeElement(/** @type {Element} */ (v));
      if (v.nodeType === 3) return '[Text ' + JSON.stringify((v.textContent || '').slice(0, 80)) + ']';
      if (v.nodeType === 9) return '[Document ' + /** @type {Document} */ (v).URL + ']';
      return '[' + v.nodeName + ']';
    }
    if (typeof Window !== 'undefined' && v instanceof Window) {
      try { return '[Window ' + v.location.href + ']'; } catch (_) { return '[Window (cross-origin)]'; }
    }
    if (v instanceof Error) {
      return { '[Error]': v.name, message: v.message, stack: String(v.stack || '').slice(0, 4000) };
    }
    if (v instanceof Date) return isNaN(v.getTime()) ? '[Invalid Date]' : v.toISOString();
    if (v instanceof RegExp) return '[RegExp ' + String(v) + ']';
    if (typeof Promise !== 'undefined' && v instanceof Promise) return '[Promise]';
    if (v instanceof ArrayBuffer) return '[ArrayBuffer ' + v.byteLength + ' bytes]';
    seen.set(v, path || '$');
    try {
      if (v instanceof Map) {
        const entries = [];
        for (const [k, val] of v) {
          if (entries.length >= MAX_ITEMS) { entries.push('[… ' + (v.size - MAX_ITEMS) + ' more]'); break; }
          entries.push([render(k, depth + 1, seen, path + '.key'), render(val, depth + 1, seen, path + '.' + String(k))]);
        }
        return { '[Map]': entries };
      }
      if (v instanceof Set) {
        const items = [];
        for (const val of v) {
          if (items.length >= MAX_ITEMS) { items.push('[… ' + (v.size - MAX_ITEMS) + ' more]'); break; }
          items.push(render(val, depth + 1, seen, path + '[]'));
        }
        return { '[Set]': items };
      }
      const listLike = Array.isArray(v) || ArrayBuffer.isView(v) ||
        (typeof NodeList !== 'undefined' && v instanceof NodeList) ||
        (typeof HTMLCollection !== 'undefined' && v instanceof HTMLCollection);
      if (listLike) {
        const arr = /** @type {ArrayLike<any>} */ (v);
        const out = [];
        const n = Math.min(arr.length, MAX_ITEMS);
        for (let i = 0; i < n; i++) out.push(render(arr[i], depth + 1, seen, path + '[' + i + ']'));
        if (arr.length > MAX_ITEMS) out.push('[… ' + (arr.length - MAX_ITEMS) + ' more]');
        return out;
      }
      if (typeof v.toJSON === 'function') {
        try { return render(v.toJSON(), depth + 1, seen, path); } catch (_) { /* fall through to the fields */ }
      }
      /** @type {Record<string, any>} */
      const out = {};
      let count = 0;
      for (const key in v) {
        if (count++ >= MAX_ITEMS) { out['[…]'] = 'more keys'; break; }
        let val;
        try { val = v[key]; } catch (e) { val = '[Throws: ' + /** @type {Error} */ (e).message + ']'; }
        out[key] = render(val, depth + 1, seen, path + '.' + key);
      }
      return out;
    } finally {
      seen.delete(v);
    }
  }

  /** Render a value and enforce the bridge's result cap (too big -> a result_too_large error). */
  function toResult(/** @type {any} */ value, /** @type {number} */ maxResult) {
    const rendered = render(value, 0, new Map(), '');
    const size = JSON.stringify(rendered === undefined ? null : rendered).length;
    if (size > maxResult) {
      throw new DbgError('result_too_large', 'The result is ' + size + ' characters as JSON, over the ' + maxResult +
        '-character cap. Return less: slice it, pick the fields you need, or summarise in the page.', size);
    }
    return rendered;
  }

  /** @param {any} e @returns {ErrorInfo} */
  function toErrorInfo(e) {
    if (e instanceof DbgError) return { code: e.code, message: e.message, size: e.size };
    if (e instanceof Error) {
      return { code: 'page_exception', message: e.name + ': ' + e.message, stack: String(e.stack || '').slice(0, 8000) };
    }
    let text;
    try { text = JSON.stringify(render(e, 0, new Map(), '')); } catch (_) { text = String(e); }
    return { code: 'page_exception', message: 'Uncaught (non-Error) value thrown: ' + String(text).slice(0, 2000) };
  }

  // ---- page model: semantic snapshot with refs, find, act ------------------------------------------------

  /** A tag for this document: refs carry it, so a ref from before a reload can never hit a new element. */
  const DOC_TAG = String.fromCharCode(97 + Math.floor(Math.random() * 26), 97 + Math.floor(Math.random() * 26));
  const refs = {
    /** @type {Map<string, WeakRef<Element>>} */ byRef: new Map(),
    /** @type {WeakMap<Element, string>} */ byEl: new WeakMap(),
    next: 1,
    snapshots: 0,
    /** @param {Element} el */
    of(el) {
      let r = this.byEl.get(el);
      if (!r) {
        r = 'e' + this.next++ + '@' + DOC_TAG;
        this.byEl.set(el, r);
        this.byRef.set(r, new WeakRef(el));
      }
      return r;
    },
    /** @param {string} ref @returns {Element} */
    resolve(ref) {
      const r = String(ref).trim();
      if (!/^e\d+@[a-z]{2}$/.test(r)) throw new DbgError('bad_ref', "'" + r + "' is not a ref; refs look like 'e12@ab' and come from page_snapshot or page_find.");
      if (r.slice(-2) !== DOC_TAG) {
        throw new DbgError('stale_ref', 'Ref ' + r + ' is from an earlier document of this page (it reloaded or navigated). Take a new page_snapshot.');
      }
      const w = this.byRef.get(r);
      const el = w && w.deref();
      if (!el || !el.isConnected) {
        throw new DbgError('stale_ref', 'Ref ' + r + ' points to an element that is no longer in the page. Take a new page_snapshot or page_find.');
      }
      return el;
    },
  };

  const INPUT_ROLES = /** @type {Record<string, string>} */ ({
    button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
    range: 'slider', number: 'spinbutton', search: 'searchbox', file: 'button', color: 'button',
  });
  const TAG_ROLES = /** @type {Record<string, string>} */ ({
    BUTTON: 'button', TEXTAREA: 'textbox', OPTION: 'option', NAV: 'navigation', MAIN: 'main', HEADER: 'banner',
    FOOTER: 'contentinfo', ASIDE: 'complementary', FORM: 'form', DIALOG: 'dialog', UL: 'list', OL: 'list',
    LI: 'listitem', TABLE: 'table', TR: 'row', TH: 'columnheader', TD: 'cell', P: 'paragraph', SUMMARY: 'button',
    DETAILS: 'group', FIELDSET: 'group', PROGRESS: 'progressbar', IFRAME: 'iframe', FRAME: 'iframe',
    H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', LABEL: 'label',
  });
  const INTERACTIVE = new Set(['link', 'button', 'checkbox', 'radio', 'slider', 'spinbutton', 'searchbox', 'textbox',
    'combobox', 'listbox', 'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'switch', 'treeitem']);
  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK']);

  /** @param {Element} el @returns {string} */
  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit && explicit !== 'presentation' && explicit !== 'none') return explicit;
    const tag = el.tagName;
    if (tag === 'A' || tag === 'AREA') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'INPUT') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'hidden') return '';
      return INPUT_ROLES[type] || (el.hasAttribute('list') ? 'combobox' : 'textbox');
    }
    if (tag === 'SELECT') return /** @type {HTMLSelectElement} */ (el).multiple ? 'listbox' : 'combobox';
    if (tag === 'IMG') return el.getAttribute('alt') === '' ? '' : 'img';
    if (TAG_ROLES[tag]) return TAG_ROLES[tag];
    if (/** @type {HTMLElement} */ (el).isContentEditable && el.getAttribute('contenteditable') !== null) return 'textbox';
    return '';
  }

  /** @param {string} s @param {number} n */
  const clip = (s, n) => { const t = s.replace(/\s+/g, ' ').trim(); return t.length > n ? t.slice(0, n - 1) + '…' : t; };

  /** control -> its labels, built once per snapshot: Chromium recomputes el.labels by scanning the document after
   * every DOM change (~60 ms for 600 controls on a 5,000-element page). @type {Map<Element, Element[]>|null} */
  let labelIndex = null;
  /** @param {Element} el @returns {ArrayLike<Element>|null} */
  function labelsOf(el) {
    if (labelIndex && el.getRootNode() === document) return labelIndex.get(el) || null;
    return /** @type {any} */ (el).labels;
  }
  function indexLabels() {
    const map = new Map();
    for (const l of Array.from(document.querySelectorAll('label'))) {
      const c = /** @type {HTMLLabelElement} */ (l).control;
      if (c) { const list = map.get(c); if (list) list.push(l); else map.set(c, [l]); }
    }
    return map;
  }

  /** A simplified accessible name: aria-labelledby, aria-label, labels, alt/title/placeholder, then text. @param {Element} el @param {string} role */
  function nameOf(el, role) {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const text = by.split(/\s+/).map((id) => { const n = el.ownerDocument.getElementById(id); return n ? n.textContent || '' : ''; }).join(' ');
      if (text.trim()) return clip(text, 100);
    }
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return clip(aria, 100);
    const labels = labelsOf(el);
    if (labels && labels.length) return clip(Array.from(labels).map((l) => labelText(/** @type {Element} */ (l))).join(' '), 100);
    if (el.tagName === 'INPUT' && /^(button|submit|reset)$/i.test(el.getAttribute('type') || '')) return clip(/** @type {HTMLInputElement} */ (el).value, 100);
    const alt = el.getAttribute('alt') || el.getAttribute('title') || el.getAttribute('placeholder');
    if (alt) return clip(alt, 100);
    if (/^(button|link|heading|option|tab|menuitem|cell|columnheader|label|listitem|treeitem|switch|checkbox|radio)$/.test(role)) {
      return clip(/** @type {HTMLElement} */ (el).innerText || el.textContent || '', 100);
    }
    return '';
  }

  /** A label's own words, without the text of the controls inside it (a select's options, say). @param {Element} label */
  function labelText(label) {
    let t = '';
    const walk = (/** @type {Node} */ n) => {
      for (const c of Array.from(n.childNodes)) {
        if (c.nodeType === 3) t += c.textContent;
        else if (c.nodeType === 1 && !/^(SELECT|TEXTAREA|INPUT|BUTTON|OPTION)$/.test(/** @type {Element} */ (c).tagName)) walk(c);
      }
    };
    walk(label);
    return t;
  }

  /** @param {Element} el */
  function hidden(el) {
    if (el.getAttribute('aria-hidden') === 'true' || /** @type {HTMLElement} */ (el).hidden) return true;
    const anyEl = /** @type {any} */ (el);
    if (typeof anyEl.checkVisibility === 'function') return !anyEl.checkVisibility({ visibilityProperty: true });
    const cs = getComputedStyle(el);
    return cs.display === 'none' || cs.visibility === 'hidden';
  }

  /** States worth showing: checked, disabled, expanded, selected, required, focused, level, value. @param {Element} el @param {string} role */
  function statesOf(el, role) {
    const out = [];
    const e = /** @type {any} */ (el);
    if (role === 'heading') out.push('level=' + (Number(el.tagName.slice(1)) || el.getAttribute('aria-level') || 2));
    if (role === 'checkbox' || role === 'radio' || role === 'switch') {
      const c = el.getAttribute('aria-checked');
      if (e.checked || c === 'true') out.push('checked');
    }
    if (e.disabled || el.getAttribute('aria-disabled') === 'true') out.push('disabled');
    const exp = el.getAttribute('aria-expanded');
    if (exp) out.push(exp === 'true' ? 'expanded' : 'collapsed');
    if (el.tagName === 'DETAILS') out.push(e.open ? 'expanded' : 'collapsed');
    if (el.tagName === 'DIALOG' && e.open) out.push('open');
    if (e.selected || el.getAttribute('aria-selected') === 'true') out.push('selected');
    if (e.required) out.push('required');
    if (el === el.ownerDocument.activeElement && el !== el.ownerDocument.body) out.push('focused');
    if ((role === 'textbox' || role === 'searchbox' || role === 'spinbutton' || role === 'slider' || role === 'combobox') &&
        typeof e.value === 'string' && el.getAttribute('type') !== 'password') {
      if (el.tagName === 'SELECT') {
        const opt = e.selectedOptions && e.selectedOptions[0];
        out.push('value=' + JSON.stringify(clip(opt ? opt.textContent || '' : '', 60)));
      } else if (e.value) out.push('value=' + JSON.stringify(clip(e.value, 60)));
    }
    return out;
  }

  /** Direct text of an element (not of its children), for context lines. @param {Element} el */
  function ownText(el) {
    let t = '';
    for (const n of Array.from(el.childNodes)) if (n.nodeType === 3) t += n.textContent;
    return clip(t, 120);
  }

  /**
   * Walk the DOM (open shadow roots included) into compact lines: `- role "name" [state] [ref=e3@ab]`.
   * @param {Element} root @param {{depth: number, interactive: boolean, maxChars: number, boxes: boolean}} opt
   */
  function snapshot(root, opt) {
    labelIndex = indexLabels();
    try { return snapshotWalk(root, opt); } finally { labelIndex = null; }
  }

  /** @param {Element} root @param {{depth: number, interactive: boolean, maxChars: number, boxes: boolean}} opt */
  function snapshotWalk(root, opt) {
    const lines = [];
    let chars = 0, count = 0, truncated = 0;
    const selected = /** @type {any} */ (window).__dbgSelected;
    /** @param {Element} el @param {number} level */
    const walk = (el, level) => {
      if (SKIP_TAGS.has(el.tagName) || hidden(el)) return;
      const role = roleOf(el);
      const name = role ? nameOf(el, role) : '';
      const text = ownText(el);
      const forControl = role === 'label' && !!(/** @type {HTMLLabelElement} */ (el).control); // its control shows the name
      const show = opt.interactive ? INTERACTIVE.has(role) : !forControl && (!!role || !!text);
      let next = level;
      if (show && level <= opt.depth) {
        count++;
        let line = '  '.repeat(level) + '- ' + (role || 'text');
        if (name) line += ' ' + JSON.stringify(name);
        else if (!role && text) line += ': ' + text;
        const st = statesOf(el, role);
        if (st.length) line += ' [' + st.join(', ') + ']';
        if (role && role !== 'paragraph') line += ' [ref=' + refs.of(el) + ']';
        if (role === 'iframe') { const id = router.ids.get(el); if (id) line += ' [frame=' + id + ']'; }
        if (el === selected) line += ' [selected-by-human]';
        if (opt.boxes && role) {
          const r = el.getBoundingClientRect();
          line += ' [box=' + [r.x, r.y, r.width, r.height].map(Math.round).join(',') + ']';
        }
        if (role && text && name !== text && !opt.interactive) line += ': ' + text;
        if (chars + line.length + 1 > opt.maxChars) { truncated++; return; }
        chars += line.length + 1;
        lines.push(line);
        next = level + 1;
        if (role && name && /^(button|link|heading|option|tab|menuitem|cell|columnheader|listitem)$/.test(role) && !el.querySelector('input,select,textarea,button,a[href],[role]')) return;
      }
      if (next > opt.depth + 1) return;
      const kids = el.shadowRoot ? Array.from(el.shadowRoot.children).concat(Array.from(el.children)) : Array.from(el.children);
      for (const k of kids) walk(k, next);
    };
    walk(root, 0);
    if (truncated) lines.push('- … ' + truncated + ' more element(s) over maxChars=' + opt.maxChars + '; narrow with root, depth or interactiveOnly');
    return { text: lines.join('\n'), elements: count, truncated: truncated > 0 };
  }

  /** Resolve a target given as {ref} | {selector} | {text} to exactly one element, or fail with candidates. @param {Record<string, any>} t */
  function target(t) {
    if (t.ref) return refs.resolve(t.ref);
    if (t.selector) {
      let all;
      try { all = Array.from(document.querySelectorAll(String(t.selector))); } catch (e) {
        throw new DbgError('bad_selector', "'" + t.selector + "' is not a valid CSS selector: " + /** @type {Error} */ (e).message);
      }
      return pickOne(all, "selector '" + t.selector + "'", t.nth);
    }
    if (t.text) {
      const want = String(t.text).toLowerCase();
      const formish = /^(fill|type|select|check|uncheck)$/.test(String(t.action || ''));
      const matched = Array.from(document.querySelectorAll('a,button,input,select,textarea,label,summary,option,[role],[tabindex],h1,h2,h3,h4,h5,h6,li,td,th,p,span,div'))
        .filter((el) => !hidden(el) && (nameOf(el, roleOf(el) || 'button') || ownText(el)).toLowerCase().includes(want))
        // a label stands for its control; for form actions only controls count
        .map((el) => (el.tagName === 'LABEL' && /** @type {HTMLLabelElement} */ (el).control) || el)
        .filter((el) => !formish || /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName) || /** @type {HTMLElement} */ (el).isContentEditable);
      const all = Array.from(new Set(matched));
      const innermost = all.filter((el) => !all.some((o) => o !== el && el.contains(o)));
      return pickOne(innermost, "text '" + t.text + "'", t.nth);
    }
    throw new DbgError('bad_target', 'Give a target: ref (from page_snapshot/page_find), selector, or text.');
  }

  /** @param {Element[]} all @param {string} what @param {number|undefined} nth */
  function pickOne(all, what, nth) {
    if (typeof nth === 'number') {
      if (all[nth]) return all[nth];
      throw new DbgError('no_match', what + ' has ' + all.length + ' match(es); nth=' + nth + ' is out of range.');
    }
    if (all.length === 1) return all[0];
    if (!all.length) throw new DbgError('no_match', 'Nothing matches ' + what + '. Take a page_snapshot or use page_find to see what is there.');
    const list = all.slice(0, 8).map((el) => refs.of(el) + ' ' + (roleOf(el) || el.tagName.toLowerCase()) + ' ' + JSON.stringify(nameOf(el, roleOf(el) || 'button') || ownText(el))).join('; ');
    throw new DbgError('ambiguous_target', what + ' matches ' + all.length + ' elements: ' + list + (all.length > 8 ? '; …' : '') + '. Pass one ref, or nth.');
  }

  /** Let the app react (framework re-renders, microtasks) before reading what changed. */
  const settle = () => new Promise((r) => setTimeout(() => requestAnimationFrame(() => r(null)), 0)).then(() => null, () => null);
  const settleBounded = () => Promise.race([settle(), new Promise((r) => setTimeout(r, 100))]);

  /** @param {Element} el @param {string} type @param {Record<string, any>} [extra] */
  function mouse(el, type, extra) {
    const r = el.getBoundingClientRect();
    const init = Object.assign({ bubbles: true, cancelable: true, composed: true, view: window, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, button: 0 }, extra || {});
    const Ctor = type.startsWith('pointer') && typeof PointerEvent !== 'undefined' ? PointerEvent : MouseEvent;
    return el.dispatchEvent(new Ctor(type, init));
  }

  /** Set a form value the way frameworks notice (the native setter, then input + change). @param {Element} el @param {string} value */
  function setValue(el, value) {
    const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const desc = Object.getOwnPropertyDescriptor(proto, 'value');
    if (desc && desc.set) desc.set.call(el, value); else /** @type {any} */ (el).value = value;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  /** @param {Element} el @param {string} chord e.g. 'Enter', 'Control+a' */
  function press(el, chord) {
    const parts = String(chord).split('+');
    const key = parts.pop() || '';
    const mods = new Set(parts.map((p) => p.toLowerCase()));
    const init = { key, bubbles: true, cancelable: true, composed: true, ctrlKey: mods.has('control') || mods.has('ctrl'),
      shiftKey: mods.has('shift'), altKey: mods.has('alt'), metaKey: mods.has('meta') || mods.has('cmd') };
    const go = el.dispatchEvent(new KeyboardEvent('keydown', init));
    el.dispatchEvent(new KeyboardEvent('keyup', init));
    const form = /** @type {any} */ (el).form;
    if (go && key === 'Enter' && form && el.tagName === 'INPUT') form.requestSubmit();
  }

  /** Run one action on one element. @param {Record<string, any>} a */
  async function act(a) {
    const el = target(a);
    const h = /** @type {HTMLElement} */ (el);
    const kind = String(a.action);
    if (kind !== 'scroll' && kind !== 'hover' && ((/** @type {any} */ (el)).disabled)) {
      throw new DbgError('disabled', 'Target ' + refs.of(el) + ' is disabled. Wait for it to become enabled (page_wait) or pick another element.');
    }
    if (typeof h.scrollIntoView === 'function' && kind !== 'scroll') h.scrollIntoView({ block: 'center', inline: 'center' });
    if (a.trusted) return trustedAct(el, a, kind);
    switch (kind) {
      case 'click': case 'dblclick':
        for (const t of ['pointerdown', 'mousedown']) mouse(el, t);
        if (typeof h.focus === 'function') h.focus();
        for (const t of ['pointerup', 'mouseup']) mouse(el, t);
        if (typeof h.click === 'function') h.click(); else mouse(el, 'click');
        if (kind === 'dblclick') { h.click(); mouse(el, 'dblclick', { detail: 2 }); }
        break;
      case 'hover': for (const t of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) mouse(el, t); break;
      case 'focus': h.focus(); break;
      case 'fill': h.focus(); setValue(el, String(a.value == null ? '' : a.value)); break;
      case 'type': {
        h.focus();
        const cur = String(/** @type {any} */ (el).value || '');
        let acc = cur;
        for (const ch of String(a.value || '')) {
          el.dispatchEvent(new KeyboardEvent('keydown', { key: ch, bubbles: true }));
          acc += ch;
          setValue(el, acc);
          el.dispatchEvent(new KeyboardEvent('keyup', { key: ch, bubbles: true }));
        }
        break;
      }
      case 'select': {
        if (el.tagName !== 'SELECT') throw new DbgError('bad_action', 'select needs a <select> element; ' + refs.of(el) + ' is <' + el.tagName.toLowerCase() + '>.');
        const s = /** @type {HTMLSelectElement} */ (el);
        const want = String(a.value);
        const opt = Array.from(s.options).find((o) => o.value === want || (o.textContent || '').trim() === want);
        if (!opt) throw new DbgError('no_match', 'No option ' + JSON.stringify(want) + ' in ' + refs.of(el) + '; options: ' + Array.from(s.options).map((o) => JSON.stringify((o.textContent || '').trim())).join(', '));
        setValue(el, opt.value);
        break;
      }
      case 'check': case 'uncheck': {
        const want = kind === 'check';
        if (!!(/** @type {any} */ (el)).checked !== want) h.click();
        break;
      }
      case 'press': press(el, String(a.key || a.value || 'Enter')); break;
      case 'drag': {
        if (!a.to) throw new DbgError('bad_action', 'drag needs `to`: the ref or CSS selector of where to drop.');
        const dest = /^e\d+@[a-z]{2}$/.test(String(a.to)) ? refs.resolve(String(a.to)) : target({ selector: a.to });
        const r = dest.getBoundingClientRect();
        const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
        const dt = typeof DataTransfer !== 'undefined' ? new DataTransfer() : null;
        const drag = (/** @type {Element} */ on, /** @type {string} */ type, /** @type {Record<string, any>} */ pos) =>
          on.dispatchEvent(new DragEvent(type, Object.assign({ bubbles: true, cancelable: true, composed: true, dataTransfer: dt }, pos)));
        mouse(el, 'pointerdown');
        mouse(el, 'mousedown');
        if (drag(el, 'dragstart', {})) {
          drag(dest, 'dragenter', at);
          drag(dest, 'dragover', at);
          drag(dest, 'drop', at);
          drag(el, 'dragend', at);
        }
        mouse(dest, 'pointermove', at);
        mouse(dest, 'mousemove', at);
        mouse(dest, 'pointerup', at);
        mouse(dest, 'mouseup', at);
        break;
      }
      case 'scroll': {
        const dy = Number(a.dy || a.value || 0), dx = Number(a.dx || 0);
        if (el === document.documentElement || el === document.body) window.scrollBy(dx, dy); else h.scrollBy(dx, dy);
        break;
      }
      default:
        throw new DbgError('bad_action', "Unknown action '" + kind + "'. Actions: click, dblclick, hover, focus, fill, type, select, check, uncheck, press, scroll, drag.");
    }
    return refs.of(el);
  }

  // ---- trusted input through the dbg-bridge Chrome extension (chrome.debugger on this tab) ---------------
  // The service worker attaches chrome.debugger to the tab on demand and sends Input.dispatchMouseEvent /
  // Input.dispatchKeyEvent / Input.insertText, so the page gets real (isTrusted=true) events; it detaches when idle.

  const TRUSTED_ACTIONS = ['click', 'dblclick', 'hover', 'check', 'uncheck', 'type', 'fill', 'press'];

  /** Throws not_available unless this page can send trusted input (the extension attached it, top page of the tab). */
  function requireTrustedInput() {
    if (window !== window.top) {
      throw new DbgError('not_available', 'This page is a frame; trusted input through the dbg-bridge extension is sent ' +
        'to the top page of the tab only. Act on the top page, or drop trusted (synthesized events, isTrusted=false).');
    }
    if (!EXT_NONCE) {
      throw new DbgError('not_available', 'trusted: true needs the dbg-bridge Chrome extension: load plugins/extension ' +
        'unpacked (chrome://extensions, Developer mode, Load unpacked), enable this site in its popup, and the tab ' +
        'reloads with the client attached by the extension, which sends real input through chrome.debugger. This client ' +
        'came from a script tag or a plugin, which can only synthesize events (isTrusted=false): drop trusted to use them.');
    }
  }

  /** Where a real click on el lands: its middle, if that point hits el (or something inside it). @param {Element} el */
  function hitPoint(el) {
    const rects = [el.getBoundingClientRect()].concat(Array.from(el.getClientRects()).slice(0, 1));
    const root = /** @type {Document|ShadowRoot} */ (el.getRootNode());
    const finder = typeof root.elementFromPoint === 'function' ? root : document;
    let hit = null;
    for (const r of rects) {
      if (r.width === 0 || r.height === 0) continue;
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
      hit = finder.elementFromPoint(x, y);
      if (hit && (hit === el || el.contains(hit))) return { x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100 };
    }
    if (!hit) throw new DbgError('not_visible', refs.of(el) + ' has no visible point on screen (hidden, empty or scrolled away); a real click cannot reach it.');
    throw new DbgError('not_visible', 'The middle of ' + refs.of(el) + ' is covered by ' + describeElement(hit) + ', which a real click would hit. ' +
      'Close or move what covers it, or target that element.');
  }

  /** Focus el for trusted keys (they go to the focused element). @param {HTMLElement} h */
  function focusForKeys(h) {
    if (typeof h.focus === 'function') h.focus();
    const active = document.activeElement;
    const root = h.getRootNode();
    const inner = root instanceof ShadowRoot ? root.activeElement : active;
    if (inner !== h && !(inner && h.contains(inner))) {
      throw new DbgError('bad_action', refs.of(h) + ' cannot take focus, so trusted keys would go elsewhere. Target the input itself.');
    }
  }

  /** One action as real input through the extension. @param {Element} el @param {Record<string, any>} a @param {string} kind */
  async function trustedAct(el, a, kind) {
    if (!TRUSTED_ACTIONS.includes(kind)) {
      throw new DbgError('bad_action', 'trusted: true covers ' + TRUSTED_ACTIONS.join(', ') + "; '" + kind + "' is only synthesized in the page: drop trusted for it.");
    }
    const h = /** @type {HTMLElement} */ (el);
    // attach first: Chrome's "started debugging this browser" bar can resize the viewport, so measure afterwards
    await ext.request('input', { steps: [] }, 20000);
    await settleBounded();
    /** @type {Array<Record<string, any>>} */
    const steps = [];
    switch (kind) {
      case 'click': case 'dblclick': case 'hover': case 'check': case 'uncheck': {
        if ((kind === 'check' || kind === 'uncheck') && !!(/** @type {any} */ (el)).checked === (kind === 'check')) return refs.of(el);
        const p = hitPoint(el);
        steps.push(kind === 'hover' ? { kind: 'move', x: p.x, y: p.y } : { kind: 'click', x: p.x, y: p.y, count: kind === 'dblclick' ? 2 : 1 });
        break;
      }
      case 'type': case 'fill': {
        focusForKeys(h);
        const field = /** @type {HTMLInputElement} */ (el);
        const text = String(a.value == null ? '' : a.value);
        if (kind === 'fill') {
          // select what is there, then the typed text (or Delete) replaces it
          if (typeof field.select === 'function') field.select();
          else { const sel = getSelection(); if (sel) sel.selectAllChildren(el); }
          steps.push(text ? { kind: 'insert', text } : { kind: 'press', chord: 'Delete' });
        } else {
          try { const end = String(field.value || '').length; field.setSelectionRange(end, end); } catch (_) { /* not a text field */ }
          steps.push({ kind: 'type', text });
        }
        break;
      }
      case 'press': focusForKeys(h); steps.push({ kind: 'press', chord: String(a.key || a.value || 'Enter') }); break;
    }
    await ext.request('input', { steps }, 20000);
    return refs.of(el);
  }

  /** @param {string} before @param {string} after */
  function diffLines(before, after) {
    const a = new Set(before.split('\n')), b = new Set(after.split('\n'));
    const removed = before.split('\n').filter((l) => !b.has(l)).map((l) => '- ' + l.trim());
    const added = after.split('\n').filter((l) => !a.has(l)).map((l) => '+ ' + l.trim());
    const all = removed.concat(added);
    return all.length > 30 ? all.slice(0, 30).concat(['… ' + (all.length - 30) + ' more changed line(s)']) : all;
  }

  // ---- console capture (kept across the last few reloads of this tab) ------------------------------------

  const CONSOLE_KEY = '__dbg_console';
  const consoleLog = {
    /** @type {Array<{seq: number, level: string, text: string, time: number, url: string, stack?: string}>} */
    entries: [],
    seq: 0,
    max: 500,
    /** @param {string} level @param {any[]} args @param {string} [stack] */
    add(level, args, stack) {
      const text = args.map((a) => {
        if (typeof a === 'string') return a;
        try { return JSON.stringify(render(a, 0, new Map(), '')); } catch (_) { return String(a); }
      }).join(' ');
      this.entries.push({ seq: ++this.seq, level, text: clip(text, 4000), time: Date.now(), url: location.href,
        stack: stack ? String(stack).slice(0, 4000) : undefined });
      if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    },
    install() {
      try {
        const saved = JSON.parse(sessionStorage.getItem(CONSOLE_KEY) || 'null');
        if (saved && Array.isArray(saved.entries)) {
          this.entries = saved.entries.slice(-200);
          this.seq = Number(saved.seq) || 0;
          this.entries.push({ seq: ++this.seq, level: 'info', text: '--- page reloaded or navigated ---', time: Date.now(), url: location.href });
        }
      } catch (_) { /* storage off */ }
      const c = /** @type {any} */ (console);
      for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
        const orig = c[level];
        c[level] = function (/** @type {any[]} */ ...args) {
          try { consoleLog.add(level, args, level === 'error' ? new Error().stack : undefined); } catch (_) { /* never break the app */ }
          return orig.apply(this, args);
        };
      }
      window.addEventListener('error', (ev) => {
        const e = /** @type {ErrorEvent} */ (ev);
        if (!e.message && ev.target && ev.target !== window) {
          const t = /** @type {any} */ (ev.target);
          consoleLog.add('error', ['Failed to load ' + (t.tagName || 'resource').toLowerCase() + ': ' + (t.src || t.href || '')]);
          return;
        }
        consoleLog.add('error', ['Uncaught ' + (e.error && e.error.name ? e.error.name + ': ' + e.error.message : e.message)],
          e.error && e.error.stack ? e.error.stack : e.filename + ':' + e.lineno + ':' + e.colno);
      }, true);
      window.addEventListener('unhandledrejection', (ev) => {
        const r = ev.reason;
        consoleLog.add('error', ['Unhandled rejection: ' + (r && r.message ? (r.name || 'Error') + ': ' + r.message : String(r))], r && r.stack);
      });
      window.addEventListener('pagehide', () => {
        try { sessionStorage.setItem(CONSOLE_KEY, JSON.stringify({ seq: this.seq, entries: this.entries.slice(-200) })); } catch (_) { /* full */ }
      });
    },
  };

  // ---- waiting ---------------------------------------------------------------------------------------------

  /** Poll a condition on every DOM change (and every 50 ms), bounded by timeoutMs. @param {() => any} check @param {number} timeoutMs */
  function waitFor(check, timeoutMs) {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let done = false;
      const finish = (/** @type {any} */ v, /** @type {any} */ err) => {
        if (done) return;
        done = true;
        mo.disconnect();
        clearInterval(iv);
        clearTimeout(to);
        if (err) reject(err); else resolve({ met: true, ms: Date.now() - started, value: v });
      };
      const tick = () => {
        try { const v = check(); if (v) finish(v, null); } catch (e) { finish(null, e); }
      };
      const mo = new MutationObserver(tick);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const iv = setInterval(tick, 50);
      const to = setTimeout(() => finish(null, new DbgError('wait_timeout', 'The condition was not met within ' + timeoutMs / 1000 + ' s.')), timeoutMs);
      tick();
    });
  }

  // ---- network capture: fetch, XHR, WebSocket, EventSource (+ resource timing for everything else) -------

  const SECRET_HEADERS = /^(authorization|cookie|set-cookie|proxy-authorization|x-api-key|x-auth-token|x-csrf-token)$/i;
  const net = {
    /** @type {Array<Record<string, any>>} */ entries: [],
    seq: 0,
    inflight: 0,
    lastChange: Date.now(),
    max: 300,
    /** Our own traffic to the bridge is not the app's: leave it out. @param {string} url */
    ours(url) {
      try {
        const u = new URL(url, location.href);
        const b = new URL(BRIDGE);
        return u.pathname.startsWith('/bridge/') && u.port === b.port && (u.hostname === b.hostname || u.hostname.endsWith('.localhost'));
      } catch (_) { return false; }
    },
    /** @param {Record<string, any>} e */
    start(e) {
      e.id = ++this.seq;
      e.startedAt = Date.now();
      this.entries.push(e);
      if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
      this.inflight++;
      this.lastChange = Date.now();
      return e;
    },
    /** @param {Record<string, any>} e */
    end(e) {
      if (e.ms != null) return;
      e.ms = Date.now() - e.startedAt;
      this.inflight = Math.max(0, this.inflight - 1);
      this.lastChange = Date.now();
    },
    /** @param {Headers|Record<string, string>|Array<[string, string]>|undefined|null} h */
    headers(h) {
      /** @type {Record<string, string>} */
      const out = {};
      if (!h) return out;
      const pairs = typeof (/** @type {any} */ (h)).forEach === 'function' && !Array.isArray(h)
        ? (() => { /** @type {Array<[string, string]>} */ const p = []; /** @type {Headers} */ (h).forEach((v, k) => p.push([k, v])); return p; })()
        : Array.isArray(h) ? h : Object.entries(h);
      for (const [k, v] of pairs) out[k.toLowerCase()] = SECRET_HEADERS.test(k) ? '[redacted]' : String(v).slice(0, 500);
      return out;
    },
    /** @param {any} body */
    body(body) {
      if (body == null) return undefined;
      if (typeof body === 'string') return clip(body, 4000);
      if (body instanceof URLSearchParams) return clip(body.toString(), 4000);
      if (typeof FormData !== 'undefined' && body instanceof FormData) return '[FormData]';
      if (typeof Blob !== 'undefined' && body instanceof Blob) return '[Blob ' + body.size + ' bytes]';
      if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return '[binary ' + body.byteLength + ' bytes]';
      return '[' + Object.prototype.toString.call(body).slice(8, -1) + ']';
    },
    install() {
      const self = this;
      const origFetch = window.fetch;
      if (origFetch) {
        window.fetch = async function (/** @type {any} */ input, /** @type {any} */ init) {
          const url = typeof input === 'string' ? input : input && input.url ? input.url : String(input);
          if (self.ours(url)) return origFetch.call(this, input, init);
          const e = self.start({ kind: 'fetch', method: String((init && init.method) || (input && input.method) || 'GET').toUpperCase(),
            url: new URL(url, location.href).href, requestHeaders: self.headers(init && init.headers), requestBody: self.body(init && init.body) });
          try {
            const res = await origFetch.call(this, input, init);
            e.status = res.status;
            e.ok = res.ok;
            e.responseHeaders = self.headers(res.headers);
            const type = res.headers.get('content-type') || '';
            const size = Number(res.headers.get('content-length') || NaN);
            e.responseSize = Number.isFinite(size) ? size : undefined;
            if (/json|text|xml|javascript|x-www-form/.test(type) && !(size > 262144)) {
              res.clone().text().then((t) => { e.responseBody = clip(t, 4000); e.responseSize = e.responseSize || t.length; }, () => {});
            }
            self.end(e);
            return res;
          } catch (err) {
            e.error = String(/** @type {any} */ (err) && /** @type {any} */ (err).message || err);
            self.end(e);
            throw err;
          }
        };
      }
      const XHR = window.XMLHttpRequest;
      if (XHR) {
        const open = XHR.prototype.open, send = XHR.prototype.send, setHeader = XHR.prototype.setRequestHeader;
        XHR.prototype.open = function (/** @type {string} */ method, /** @type {string|URL} */ url) {
          /** @type {any} */ (this).__dbgNet = { kind: 'xhr', method: String(method).toUpperCase(), url: new URL(String(url), location.href).href, requestHeaders: {} };
          return open.apply(this, /** @type {any} */ (arguments));
        };
        XHR.prototype.setRequestHeader = function (/** @type {string} */ k, /** @type {string} */ v) {
          const d = /** @type {any} */ (this).__dbgNet;
          if (d) d.requestHeaders[k.toLowerCase()] = SECRET_HEADERS.test(k) ? '[redacted]' : String(v).slice(0, 500);
          return setHeader.call(this, k, v);
        };
        XHR.prototype.send = function (/** @type {any} */ body) {
          const d = /** @type {any} */ (this).__dbgNet;
          if (d && !self.ours(d.url)) {
            const e = self.start(Object.assign(d, { requestBody: self.body(body) }));
            this.addEventListener('loadend', () => {
              e.status = this.status;
              e.ok = this.status >= 200 && this.status < 300;
              if (!this.status) e.error = 'network error or aborted';
              const t = this.responseType === '' || this.responseType === 'text' ? this.responseText : null;
              if (t != null) { e.responseBody = clip(t, 4000); e.responseSize = t.length; }
              self.end(e);
            });
          }
          return send.call(this, body);
        };
      }
      const WS = window.WebSocket;
      if (WS) {
        const Wrapped = function (/** @type {string|URL} */ url, /** @type {any} */ protocols) {
          const ws = protocols === undefined ? new WS(url) : new WS(url, protocols);
          const href = String(url);
          if (!self.ours(href.replace(/^ws/, 'http'))) {
            const e = self.start({ kind: 'websocket', method: 'GET', url: href, messagesIn: 0, messagesOut: 0 });
            ws.addEventListener('open', () => { e.status = 101; e.ok = true; });
            ws.addEventListener('message', () => { e.messagesIn++; });
            ws.addEventListener('close', (ev) => { e.closeCode = ev.code; self.end(e); });
            ws.addEventListener('error', () => { e.error = 'websocket error'; });
            const sendMsg = ws.send;
            ws.send = function (/** @type {any} */ data) { e.messagesOut++; return sendMsg.call(ws, data); };
          }
          return ws;
        };
        Wrapped.prototype = WS.prototype;
        Object.assign(Wrapped, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
        /** @type {any} */ (window).WebSocket = Wrapped;
      }
      const ES = window.EventSource;
      if (ES) {
        const Wrapped = function (/** @type {string|URL} */ url, /** @type {any} */ init) {
          const es = new ES(url, init);
          if (!self.ours(String(url))) {
            const e = self.start({ kind: 'eventsource', method: 'GET', url: new URL(String(url), location.href).href, messagesIn: 0 });
            es.addEventListener('open', () => { e.status = 200; e.ok = true; });
            es.addEventListener('message', () => { e.messagesIn++; });
            es.addEventListener('error', () => { if (es.readyState === 2) { e.error = e.error || 'closed'; self.end(e); } });
          }
          return es;
        };
        Wrapped.prototype = ES.prototype;
        Object.assign(Wrapped, { CONNECTING: 0, OPEN: 1, CLOSED: 2 });
        /** @type {any} */ (window).EventSource = Wrapped;
      }
    },
    /** Everything else the page loaded (documents, scripts, images, css), from resource timing. */
    resources() {
      const out = [];
      for (const r of /** @type {any[]} */ (performance.getEntriesByType('resource'))) {
        if (r.initiatorType === 'fetch' || r.initiatorType === 'xmlhttprequest' || this.ours(r.name)) continue;
        out.push({ kind: 'resource:' + r.initiatorType, url: r.name, status: r.responseStatus || undefined,
          ms: Math.round(r.duration), responseSize: r.transferSize || r.encodedBodySize || undefined });
      }
      return out;
    },
  };

  // ---- source lookup: compile-time attributes, then framework debug info -----------------------------------

  /** @param {string} spec 'path:line:col' */
  function parseLoc(spec) {
    const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(String(spec));
    return m ? { file: m[1], line: Number(m[2]), column: m[3] ? Number(m[3]) : null } : { file: String(spec), line: null, column: null };
  }

  /** The first app frame of a stack (not node_modules, not Vite's or React's internals). @param {string} stack */
  function appFrame(stack) {
    for (const line of String(stack || '').split('\n')) {
      const m = /\(?((?:https?|file):\/\/[^\s)]+?):(\d+):(\d+)\)?\s*$/.exec(line);
      if (!m || /node_modules|\/@vite\/|\/@react-refresh|react-dom|react_jsx|chunk-|dbg_client\.js/.test(m[1])) continue;
      let file = m[1];
      try { const u = new URL(file); file = u.pathname; } catch (_) { /* keep */ }
      return { file, line: Number(m[2]), column: Number(m[3]) };
    }
    return null;
  }

  /** @param {Element} el */
  function sourceOf(el) {
    /** @type {{file: string, line: number|null, column: number|null}|null} */
    let loc = null;
    let via = 'unknown';
    /** @type {string[]} */
    const components = [];
    const attr = el.closest('[data-dbg-source]');
    if (attr) { loc = parseLoc(attr.getAttribute('data-dbg-source') || ''); via = 'attribute'; }
    const anyEl = /** @type {any} */ (el);
    const fiberKey = Object.keys(anyEl).find((k) => k.startsWith('__reactFiber$') || k.startsWith('__reactInternalInstance$'));
    if (fiberKey) {
      for (let f = anyEl[fiberKey]; f; f = f.return) {
        const t = f.type;
        const name = t && typeof t !== 'string' ? (t.displayName || t.name || (t.render && (t.render.displayName || t.render.name))) : '';
        if (name && components[components.length - 1] !== name) components.push(name);
        if (!loc && f._debugSource) { loc = { file: f._debugSource.fileName, line: f._debugSource.lineNumber, column: f._debugSource.columnNumber || null }; via = 'react'; }
        if (!loc && f._debugStack && f._debugStack.stack) { const fr = appFrame(f._debugStack.stack); if (fr) { loc = fr; via = 'react'; } }
      }
      if (via === 'unknown' && components.length) via = 'react';
    }
    let vue = anyEl.__vueParentComponent;
    if (vue) {
      if (!loc && vue.type && vue.type.__file) { loc = { file: vue.type.__file, line: null, column: null }; via = 'vue'; }
      for (; vue; vue = vue.parent) {
        const t = vue.type || {};
        const name = t.name || t.__name || (t.__file ? String(t.__file).split('/').pop().replace(/\.vue$/, '') : '');
        if (name) components.push(name);
      }
      if (via === 'unknown' && components.length) via = 'vue';
    }
    const svelte = anyEl.__svelte_meta;
    if (!loc && svelte && svelte.loc) { loc = { file: svelte.loc.file, line: svelte.loc.line + 1, column: svelte.loc.column }; via = 'svelte'; }
    return { file: loc ? loc.file : null, line: loc ? loc.line : null, column: loc ? loc.column : null, via, components };
  }

  // ---- highlight overlay (in a shadow root, so the app's styles neither leak in nor get disturbed) -----------

  const overlay = {
    /** @type {HTMLElement|null} */ host: null,
    /** @type {ShadowRoot|null} */ root: null,
    /** @type {Array<{el: Element, box: HTMLElement}>} */ items: [],
    raf: 0,
    timer: 0,
    ensure() {
      if (this.host && this.host.isConnected && this.root) return this.root;
      this.host = document.createElement('dbg-overlay');
      this.host.style.cssText = 'all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;';
      this.root = this.host.attachShadow({ mode: 'closed' });
      (document.body || document.documentElement).appendChild(this.host);
      return this.root;
    },
    /** @param {Element[]} els @param {string} label @param {number} durationMs */
    show(els, label, durationMs) {
      const root = this.ensure();
      for (const el of els) {
        const box = document.createElement('div');
        box.style.cssText = 'position: fixed; border: 2px solid #e4007c; background: rgba(228,0,124,.12); border-radius: 3px; box-sizing: border-box;';
        const tag = document.createElement('span');
        tag.textContent = label || refs.of(el);
        tag.style.cssText = 'position: absolute; left: -2px; top: -20px; font: 12px/16px system-ui, sans-serif; color: #fff; background: #e4007c; padding: 1px 5px; border-radius: 3px; white-space: nowrap;';
        box.appendChild(tag);
        root.appendChild(box);
        this.items.push({ el, box });
      }
      this.place();
      if (durationMs > 0) { clearTimeout(this.timer); this.timer = window.setTimeout(() => this.clear(), durationMs); }
    },
    place() {
      cancelAnimationFrame(this.raf);
      for (const { el, box } of this.items) {
        const r = el.getBoundingClientRect();
        Object.assign(box.style, { left: r.left + 'px', top: r.top + 'px', width: r.width + 'px', height: r.height + 'px', display: el.isConnected ? 'block' : 'none' });
      }
      if (this.items.length) this.raf = requestAnimationFrame(() => this.place());
    },
    clear() {
      cancelAnimationFrame(this.raf);
      for (const { box } of this.items) box.remove();
      const n = this.items.length;
      this.items = [];
      if (this.host) this.host.remove();
      this.host = null;
      this.root = null;
      return n;
    },
  };

  // ---- the human panel: questions, consent, toasts, the element picker, messages (one open shadow root) -------

  /** @type {((msg: UpMessage) => void) | null} */
  let sendUp = null; // set by the host launcher: sends an event to the bridge

  const PANEL_CSS = `
    :host { all: initial; }
    .wrap { position: fixed; right: 16px; bottom: 16px; z-index: 2147483647; display: flex; flex-direction: column;
      gap: 8px; max-width: 380px; font: 14px/1.4 system-ui, sans-serif; color: #111; }
    .card { background: #fff; border: 1px solid #d0d0d7; border-left: 4px solid #5b4bdb; border-radius: 8px;
      box-shadow: 0 6px 24px rgba(0,0,0,.18); padding: 10px 12px; }
    .card.consent { border-left-color: #d97706; } .toast.error { border-left-color: #dc2626; }
    .toast.success { border-left-color: #16a34a; } .toast.warning { border-left-color: #d97706; }
    .who { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #666; margin-bottom: 2px; }
    pre { max-height: 140px; overflow: auto; background: #f5f5f7; padding: 6px; border-radius: 4px; font-size: 12px;
      white-space: pre-wrap; margin: 6px 0; }
    .row { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
    button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #bbb; background: #f7f7f9; cursor: pointer; }
    button.primary { background: #5b4bdb; border-color: #5b4bdb; color: #fff; }
    input, textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 4px 6px; border: 1px solid #bbb; border-radius: 6px; }
  `;

  const human = {
    /** @type {HTMLElement|null} */ host: null,
    /** @type {HTMLElement|null} */ wrap: null,
    /** @type {Map<string, HTMLElement>} */ cards: new Map(),
    picking: /** @type {null | {questionId: string|null, box: HTMLElement, onMove: (e: Event) => void, onClick: (e: Event) => void, onKey: (e: KeyboardEvent) => void}} */ (null),

    ensure() {
      if (this.host && this.host.isConnected && this.wrap) return this.wrap;
      this.host = document.createElement('dbg-human');
      const root = this.host.attachShadow({ mode: 'open' });
      const style = document.createElement('style');
      style.textContent = PANEL_CSS;
      this.wrap = document.createElement('div');
      this.wrap.className = 'wrap';
      root.append(style, this.wrap);
      (document.body || document.documentElement).appendChild(this.host);
      return this.wrap;
    },

    /** @param {string} tag @param {Record<string, string>} [attrs] @param {string} [text] */
    el(tag, attrs, text) {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
      if (text != null) e.textContent = text; // always text, never HTML: questions come from the agent
      return e;
    },

    /** @param {{questionId: string, kind: string, text: string, choices: string[], detail: string, dismiss?: string}} q */
    ask(q) {
      if (q.dismiss) { this.remove(q.dismiss); return { dismissed: q.dismiss }; }
      const wrap = this.ensure();
      this.remove(q.questionId);
      const card = this.el('div', { class: 'card ' + q.kind, 'data-question': q.questionId, role: 'dialog', 'aria-label': 'Question from the agent' });
      card.append(this.el('div', { class: 'who' }, q.kind === 'consent' ? 'Agent wants to run code' : 'Agent asks'), this.el('div', { class: 'text' }, q.text));
      if (q.detail) card.append(this.el('pre', {}, q.detail));
      const row = this.el('div', { class: 'row' });
      const answer = (/** @type {any} */ a) => { this.remove(q.questionId); this.emit('answer', String(a && a.text || a), { answer: a }, q.questionId); };
      if (q.kind === 'confirm') {
        for (const [label, value] of [['Yes', true], ['No', false]]) {
          const b = this.el('button', { class: value ? 'primary' : '', 'data-answer': String(value) }, String(label));
          b.addEventListener('click', () => answer(value));
          row.append(b);
        }
      } else if (q.kind === 'choice' || q.kind === 'consent') {
        q.choices.forEach((c, i) => {
          const b = this.el('button', { class: i === 0 ? 'primary' : '', 'data-answer': c }, c);
          b.addEventListener('click', () => answer(c));
          row.append(b);
        });
      } else if (q.kind === 'text') {
        const input = /** @type {HTMLTextAreaElement} */ (this.el('textarea', { rows: '2', 'aria-label': 'Your answer' }));
        const b = this.el('button', { class: 'primary', 'data-answer': 'send' }, 'Send');
        b.addEventListener('click', () => answer(input.value));
        input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); answer(input.value); } });
        card.append(input);
        row.append(b);
      } else if (q.kind === 'pick') {
        const b = this.el('button', { class: 'primary', 'data-answer': 'pick' }, 'Pick an element');
        b.addEventListener('click', () => this.startPicker(q.questionId));
        row.append(b);
      }
      card.append(row);
      wrap.append(card);
      this.cards.set(q.questionId, card);
      return { shown: q.questionId };
    },

    /** @param {string} id */
    remove(id) {
      const card = this.cards.get(id);
      if (card) card.remove();
      this.cards.delete(id);
    },

    /** @param {{message: string, level: string, durationMs: number}} n */
    notify(n) {
      const card = this.el('div', { class: 'card toast ' + (n.level || 'info'), role: 'status' });
      card.append(this.el('div', { class: 'who' }, 'Agent'), this.el('div', { class: 'text' }, n.message));
      this.ensure().append(card);
      setTimeout(() => card.remove(), Math.max(1000, Number(n.durationMs) || 5000));
      return { shown: true };
    },

    /** @param {string} kind @param {string} text @param {Record<string, any>} data @param {string} [questionId] */
    emit(kind, text, data, questionId) {
      if (sendUp) sendUp(/** @type {any} */ ({ type: 'event', kind, text: String(text).slice(0, 8000), data, questionId }));
    },

    /** The element picker: hover highlights, click selects (then an optional note), Escape cancels. @param {string|null} questionId */
    startPicker(questionId) {
      if (this.picking) this.stopPicker();
      const box = this.el('div');
      box.style.cssText = 'position: fixed; pointer-events: none; border: 2px solid #5b4bdb; background: rgba(91,75,219,.12); z-index: 2147483646; display: none;';
      this.ensure().append(box);
      /** @param {Event} e */
      const under = (e) => {
        const me = /** @type {MouseEvent} */ (e);
        const t = document.elementFromPoint(me.clientX, me.clientY);
        return t && t !== this.host ? t : null;
      };
      const onMove = (/** @type {Event} */ e) => {
        const t = under(e);
        if (!t) return;
        const r = t.getBoundingClientRect();
        Object.assign(box.style, { display: 'block', left: r.left + 'px', top: r.top + 'px', width: r.width + 'px', height: r.height + 'px' });
      };
      const onClick = (/** @type {Event} */ e) => {
        const t = under(e);
        if (!t) return;
        e.preventDefault();
        e.stopPropagation();
        this.stopPicker();
        this.selected(t, questionId);
      };
      const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Escape') this.stopPicker(); };
      document.addEventListener('mousemove', onMove, true);
      document.addEventListener('click', onClick, true);
      document.addEventListener('keydown', onKey, true);
      this.picking = { questionId, box, onMove, onClick, onKey };
    },

    stopPicker() {
      const p = this.picking;
      if (!p) return;
      document.removeEventListener('mousemove', p.onMove, true);
      document.removeEventListener('click', p.onClick, true);
      document.removeEventListener('keydown', p.onKey, true);
      p.box.remove();
      this.picking = null;
    },

    /** @param {Element} el */
    selector(el) {
      if (el.id) return '#' + CSS.escape(el.id);
      const parts = [];
      for (let e = /** @type {Element|null} */ (el); e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
        if (e.id) { parts.unshift('#' + CSS.escape(e.id)); break; }
        const parent = e.parentElement;
        const same = parent ? Array.from(parent.children).filter((c) => c.tagName === /** @type {Element} */ (e).tagName) : [];
        parts.unshift(e.tagName.toLowerCase() + (same.length > 1 ? ':nth-of-type(' + (same.indexOf(e) + 1) + ')' : ''));
      }
      return parts.join(' > ');
    },

    /** The human picked `el`: answer the question it was for, or send element_selected (with an optional note). @param {Element} el @param {string|null} questionId */
    selected(el, questionId) {
      /** @type {any} */ (window).__dbgSelected = el;
      const info = Object.assign({ ref: refs.of(el), selector: this.selector(el), text: clip(/** @type {HTMLElement} */ (el).innerText || el.textContent || '', 200),
        role: roleOf(el) || el.tagName.toLowerCase() }, { source: sourceOf(el) });
      if (questionId) {
        this.remove(questionId);
        this.emit('answer', info.selector, { answer: info }, questionId);
        return;
      }
      const card = this.el('div', { class: 'card', 'data-picked': info.ref });
      card.append(this.el('div', { class: 'who' }, 'Send to the agent'), this.el('div', { class: 'text' }, info.selector));
      const note = /** @type {HTMLInputElement} */ (this.el('input', { placeholder: 'Add a note (optional)', 'aria-label': 'Note' }));
      const row = this.el('div', { class: 'row' });
      const send = this.el('button', { class: 'primary', 'data-answer': 'send' }, 'Send');
      const cancel = this.el('button', {}, 'Cancel');
      const done = (/** @type {boolean} */ go) => {
        card.remove();
        if (go) this.emit('element_selected', note.value || info.selector, Object.assign(info, { note: note.value }));
      };
      send.addEventListener('click', () => done(true));
      cancel.addEventListener('click', () => done(false));
      if (info.source.file) {
        const open = this.el('button', { 'data-answer': 'open' }, 'Open in editor');
        open.addEventListener('click', () => {
          card.remove();
          this.emit('open_file', info.source.file + ':' + (info.source.line || 1), { file: info.source.file, line: info.source.line, column: info.source.column, ref: info.ref });
        });
        row.append(open);
      }
      note.addEventListener('keydown', (e) => { if (e.key === 'Enter') done(true); });
      row.append(send, cancel);
      card.append(note, row);
      this.ensure().append(card);
      note.focus();
    },

    /** A message box for the human (Alt+Shift+M). */
    compose() {
      const card = this.el('div', { class: 'card', 'data-compose': '1' });
      const box = /** @type {HTMLTextAreaElement} */ (this.el('textarea', { rows: '3', placeholder: 'Message the agent…', 'aria-label': 'Message' }));
      const row = this.el('div', { class: 'row' });
      const send = this.el('button', { class: 'primary', 'data-answer': 'send' }, 'Send');
      send.addEventListener('click', () => { if (box.value.trim()) this.emit('message', box.value, { url: location.href }); card.remove(); });
      row.append(send);
      card.append(this.el('div', { class: 'who' }, 'Message the agent'), box, row);
      this.ensure().append(card);
      box.focus();
    },
  };

  // ---- screenshots through the dbg-bridge Chrome extension (plugins/extension) -------------------------
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

  // ---- COMMANDS: name -> async (params, ctx) => result -------------------------------------------------

  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;

  /** @param {string} code */
  function compile(code) {
    const expr = code.replace(/[\s;]+$/, '');
    try {
      return new AsyncFunction('args', 'return (' + expr + '\n);');
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
    }
    return new AsyncFunction('args', code);
  }

  /** @type {Record<string, Command>} */
  const COMMANDS = {
    async ping(_params, ctx) {
      return { pong: true, frameId: ctx.frameId, url: location.href, time: Date.now() };
    },
    async location() {
      return { href: location.href, origin: location.origin, title: document.title, readyState: document.readyState };
    },
    async frames(_params, ctx) {
      if (ctx.role === 'host') return router.frameList();
      return Array.from(document.querySelectorAll('iframe, frame')).map((el) => ({
        src: /** @type {HTMLIFrameElement} */ (el).src, crossOrigin: !sameOrigin(/** @type {HTMLIFrameElement} */ (el)),
      }));
    },
    async eval(params, ctx) {
      const code = String(params.code == null ? '' : params.code);
      let fn;
      try {
        fn = compile(code);
      } catch (e) {
        if (e instanceof EvalError || /unsafe-eval|Content Security Policy/i.test(String(/** @type {any} */ (e).message))) {
          throw new DbgError('csp_blocked', "This page's Content-Security-Policy forbids eval ('unsafe-eval' is not " +
            'allowed), so code cannot run here. Named commands (ping, location, frames) still work; in development, ' +
            "add 'unsafe-eval' to script-src to enable page_exec code.");
        }
        if (e instanceof SyntaxError) throw new DbgError('syntax_error', 'SyntaxError: ' + e.message + '. Fix the code and retry.');
        throw e;
      }
      return toResult(await fn.call(window, params.args), ctx.maxResult);
    },
    async snapshot(params, ctx) {
      const root = params.root ? target(/^e\d+@/.test(String(params.root)) ? { ref: params.root } : { selector: params.root })
        : (document.body || document.documentElement);
      const out = snapshot(root, {
        depth: params.depth == null ? 64 : Number(params.depth),
        interactive: !!params.interactiveOnly,
        maxChars: Number(params.maxChars) || 12000,
        boxes: !!params.boxes,
      });
      refs.snapshots++;
      let tree = out.text;
      if (params.includeFrames && ctx.role === 'host' && /\[frame=f\d+\]/.test(tree)) {
        const lines = [];
        for (const line of tree.split('\n')) {
          lines.push(line);
          const m = /^(\s*)- iframe.*\[frame=(f\d+)\]/.exec(line);
          if (!m) continue;
          const sub = await router.exec(m[2], 'snapshot', Object.assign({}, params, { includeFrames: false, __maxResult: ctx.maxResult }), 5000);
          if (!sub.ok || !sub.result) { lines.push(m[1] + '  - (frame ' + m[2] + ': ' + (sub.error ? sub.error.code : 'no answer') + ')'); continue; }
          for (const l of String(sub.result.tree).split('\n')) if (l) lines.push(m[1] + '  ' + l.replace(/\[ref=/g, '[ref=' + m[2] + ':'));
        }
        tree = lines.join('\n');
      }
      return { snapshotId: 's' + refs.snapshots + '@' + DOC_TAG, url: location.href, title: document.title,
        elements: out.elements, truncated: out.truncated, tree };
    },
    async find(params) {
      const limit = Math.max(1, Math.min(Number(params.limit) || 20, 200));
      let re = null;
      if (params.regex) {
        try { re = new RegExp(String(params.regex), 'i'); } catch (e) {
          throw new DbgError('bad_regex', 'Invalid regex: ' + /** @type {Error} */ (e).message);
        }
      }
      const text = params.text ? String(params.text).toLowerCase() : '';
      let pool;
      try { pool = Array.from(document.querySelectorAll(params.selector ? String(params.selector) : '*')); } catch (e) {
        throw new DbgError('bad_selector', "'" + params.selector + "' is not a valid CSS selector: " + /** @type {Error} */ (e).message);
      }
      const hits = [];
      let total = 0;
      for (const el of pool) {
        if (SKIP_TAGS.has(el.tagName) || hidden(el)) continue;
        const role = roleOf(el);
        if (params.role && role !== params.role) continue;
        const label = nameOf(el, role || 'button') || ownText(el);
        if (text && !label.toLowerCase().includes(text)) continue;
        if (re && !re.test(label)) continue;
        if ((text || re) && !params.role && !role && !ownText(el)) continue; // containers match through their children
        total++;
        if (hits.length < limit) {
          const ctx = el.closest('form,dialog,section,article,li,tr,fieldset,nav,header,footer,[role=dialog]');
          hits.push({ ref: refs.of(el), role: role || el.tagName.toLowerCase(), name: label,
            context: ctx && ctx !== el ? clip(/** @type {HTMLElement} */ (ctx).innerText || ctx.textContent || '', 80) : '' });
        }
      }
      return { matches: hits, total, more: total > hits.length };
    },
    async act(params) {
      const batch = Array.isArray(params.actions) && params.actions.length ? params.actions : [params];
      // trusted: per action, else the call's (real input through the extension instead of synthesized events)
      const actions = batch.map((/** @type {Record<string, any>} */ a) => Object.assign({}, a, { trusted: a.trusted != null ? !!a.trusted : !!params.trusted }));
      if (params.dryRun) {
        // Which of these actions would submit a form (the bridge asks the human first when that needs consent).
        const submits = [];
        for (const a of actions) {
          const el = target(a);
          const form = /** @type {any} */ (el).form;
          const kind = String(a.action);
          const submitButton = /^(BUTTON|INPUT)$/.test(el.tagName) && form &&
            /^(submit|image)$/i.test(el.getAttribute('type') || (el.tagName === 'BUTTON' ? 'submit' : ''));
          const enter = kind === 'press' && /(^|\+)Enter$/.test(String(a.key || a.value || 'Enter')) && form && el.tagName === 'INPUT';
          if (((kind === 'click' || kind === 'dblclick') && submitButton) || enter) {
            submits.push(refs.of(el) + ' submits ' + (form.getAttribute('action') || location.pathname) + ' (' + (form.getAttribute('method') || 'get') + ')');
          }
        }
        return { submits };
      }
      if (actions.some((a) => a.trusted)) requireTrustedInput();
      const opt = { depth: 64, interactive: false, maxChars: 400000, boxes: false };
      const body = document.body || document.documentElement;
      const before = snapshot(body, opt).text;
      const url = location.href;
      const done = [];
      for (const a of actions) {
        done.push({ action: a.action, ref: await act(a) });
        await settleBounded();
      }
      const after = snapshot(body, opt).text;
      /** @type {Record<string, any>} */
      const out = { done, changed: diffLines(before, after) };
      if (actions.some((a) => !a.trusted)) {
        out.untrusted = 'events were synthesized in the page (isTrusted=false); trusted: true sends real input through the dbg-bridge extension';
      }
      if (actions.some((a) => a.trusted)) out.trusted = 'real input from the browser through the dbg-bridge extension (chrome.debugger): isTrusted=true';
      if (location.href !== url) out.url = location.href;
      if (params.snapshot) out.tree = snapshot(body, { depth: 64, interactive: false, maxChars: 12000, boxes: false }).text;
      return out;
    },
    async console(params) {
      const since = Number(params.since) || 0;
      const levels = params.level ? new Set(String(params.level).split(',')) : null;
      const limit = Math.max(1, Math.min(Number(params.limit) || 100, 500));
      const all = consoleLog.entries.filter((e) => e.seq > since && (!levels || levels.has(e.level)));
      const page = all.slice(0, limit).map((e) => (params.stack ? e : Object.assign({}, e, { stack: undefined })));
      return { entries: page, cursor: page.length ? page[page.length - 1].seq : Math.max(since, 0), more: all.length > page.length };
    },
    async wait(params) {
      const timeoutMs = Math.max(0, Number(params.timeout) || 5) * 1000;
      const state = String(params.state || 'visible');
      if (params.networkIdle) {
        return waitFor(() => net.inflight === 0 && Date.now() - net.lastChange >= 500, timeoutMs);
      }
      if (params.url) {
        const want = String(params.url);
        return waitFor(() => location.href.includes(want) && location.href, timeoutMs);
      }
      /** @returns {Element|null} */
      const find = () => {
        if (params.ref) {
          try { return refs.resolve(params.ref); } catch (e) {
            if (state === 'hidden' && /** @type {any} */ (e).code === 'stale_ref') return null;
            throw e;
          }
        }
        if (params.selector) return document.querySelector(String(params.selector));
        if (params.text) {
          const want = String(params.text).toLowerCase();
          const w = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
          for (let n = w.nextNode(); n; n = w.nextNode()) {
            const p = n.parentElement;
            if (p && (n.textContent || '').toLowerCase().includes(want) && !hidden(p)) return p;
          }
          return null;
        }
        throw new DbgError('bad_arguments', 'Give text, selector, ref or url to wait for.');
      };
      return waitFor(() => {
        const el = find();
        if (state === 'hidden') return !el || hidden(el);
        if (!el || hidden(el)) return false;
        if (state === 'enabled') return !(/** @type {any} */ (el)).disabled && el.getAttribute('aria-disabled') !== 'true' && refs.of(el);
        return refs.of(el);
      }, timeoutMs);
    },
    async navigate(params) {
      const action = String(params.action || 'goto');
      const url = params.url ? new URL(String(params.url), location.href).href : '';
      if (action === 'goto' && !url) throw new DbgError('bad_arguments', 'goto needs a url.');
      // Answer first, navigate a moment later: the bridge then waits for this tab to come back under its pageId.
      setTimeout(() => {
        if (action === 'reload') location.reload();
        else if (action === 'back') history.back();
        else if (action === 'forward') history.forward();
        else location.href = url;
      }, 20);
      return { from: location.href, action, to: url || null };
    },
    async network(params) {
      if (params.id != null) {
        const e = net.entries.find((x) => x.id === Number(params.id));
        if (!e) throw new DbgError('no_match', 'No request ' + params.id + ' is kept (only the last ' + net.max + ' are). Call page_network without id.');
        return { request: e };
      }
      const since = Number(params.since) || 0;
      const limit = Math.max(1, Math.min(Number(params.limit) || 50, 300));
      const filter = params.filter ? String(params.filter).toLowerCase() : '';
      const failed = !!params.failedOnly;
      const pick = net.entries.filter((e) => e.id > since && (!filter || e.url.toLowerCase().includes(filter)) &&
        (!failed || e.error || (e.status != null && e.status >= 400)));
      const rows = pick.slice(0, limit).map((e) => ({ id: e.id, kind: e.kind, method: e.method, url: clip(e.url, 300), status: e.status,
        ms: e.ms, size: e.responseSize, error: e.error, pending: e.ms == null || undefined }));
      /** @type {Record<string, any>} */
      const out = { requests: rows, cursor: rows.length ? rows[rows.length - 1].id : since, more: pick.length > rows.length, inflight: net.inflight };
      if (params.resources) out.resources = net.resources().filter((r) => !filter || r.url.toLowerCase().includes(filter)).slice(0, limit);
      return out;
    },
    async source(params) {
      let el;
      if (params.ref || params.selector) el = target(params);
      else el = /** @type {any} */ (window).__dbgSelected;
      if (!el) throw new DbgError('bad_target', 'Give ref or selector (no element has been selected by the human yet).');
      return Object.assign({ ref: refs.of(el), element: describeElement(el) }, sourceOf(el));
    },
    async highlight(params) {
      if (params.clear) return { cleared: overlay.clear() };
      const list = Array.isArray(params.refs) ? params.refs.map((/** @type {string} */ r) => refs.resolve(r)) : [];
      if (params.selector) {
        try { list.push(...Array.from(document.querySelectorAll(String(params.selector))).slice(0, 50)); } catch (e) {
          throw new DbgError('bad_selector', "'" + params.selector + "' is not a valid CSS selector.");
        }
      }
      if (!list.length) throw new DbgError('no_match', 'Nothing to highlight: give refs or a selector that matches.');
      overlay.show(list, String(params.label || ''), Number(params.durationMs) || 0);
      return { highlighted: list.map((el) => refs.of(el)) };
    },
    async ask(params, ctx) {
      if (ctx.role !== 'host') throw new DbgError('bad_target', 'Questions are shown in the tab (host), not in a frame.');
      return human.ask(/** @type {any} */ (params));
    },
    async notify(params) {
      return human.notify(/** @type {any} */ (params));
    },
    async screenshot(params, ctx) {
      const box = params.ref || params.selector ? await visibleBox(target({ ref: params.ref, selector: params.selector })) : null;
      // a same-origin frame hands its box (in the host's viewport) to the host, which talks to the extension
      if (ctx.role === 'frame') return { frameBox: toHostBox(box || { x: 0, y: 0, width: innerWidth, height: innerHeight }) };
      return capture(box, ctx.maxResult);
    },
  };

  /** Run one command here (in this window) and package the outcome. @returns {Promise<{ok: boolean, result?: any, error?: ErrorInfo}>} */
  async function runLocal(/** @type {string} */ name, /** @type {Record<string, any>} */ params, /** @type {CommandContext} */ ctx) {
    const cmd = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : null;
    if (!cmd) {
      return { ok: false, error: { code: 'unknown_command', message: "Unknown command '" + name + "'. Known: " + Object.keys(COMMANDS).join(', ') + '.' } };
    }
    try {
      const result = await cmd(params || {}, ctx);
      // eval renders its own result; a screenshot is one long base64 string, capped in capture()
      return { ok: true, result: name === 'eval' || (name === 'screenshot' && ctx.role === 'host') ? result : toResult(result, ctx.maxResult) };
    } catch (e) {
      return { ok: false, error: toErrorInfo(e) };
    }
  }

  // ---- frame router: host <-> same-origin iframes over postMessage envelopes ----------------------------

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

  /** @param {any} data @returns {data is Envelope} */
  function isEnvelope(data) {
    return !!data && typeof data === 'object' && data.__dbg === 1 && typeof data.type === 'string' && data.type.startsWith('dbg_');
  }

  /**
   * @typedef {{id: string, el: HTMLIFrameElement, parent: string, ready: boolean, win: Window|null,
   *            readyWaiters: Array<() => void>}} FrameEntry
   */
  const router = {
    /** @type {Map<string, FrameEntry>} */ frames: new Map(),
    /** @type {WeakMap<Element, string>} */ ids: new WeakMap(),
    /** @type {Map<string, {resolve: (v: any) => void, frameId: string}>} */ waiting: new Map(),
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
            entry = { id, el, parent: parentId, ready: false, win: null, readyWaiters: [] };
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
      if (id && entry) {
        entry.ready = false;
        entry.win = el.contentWindow;
        this.failFrame(id, 'frame_reloaded', 'Frame ' + id + ' navigated or reloaded while the call ran. Retry if it is safe.');
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

    /** @param {string} frameId @param {string} code @param {string} message */
    failFrame(frameId, code, message) {
      for (const [rid, w] of this.waiting) {
        if (w.frameId === frameId) {
          this.waiting.delete(rid);
          w.resolve({ ok: false, error: { code, message } });
        }
      }
    },

    /** Run a command in frame `frameId` (host side). */
    async exec(/** @type {string} */ frameId, /** @type {string} */ command, /** @type {Record<string, any>} */ params, /** @type {number} */ timeoutMs) {
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
        this.waiting.set(requestId, { resolve, frameId });
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
      else if (env.type === 'dbg_exec_result' && env.requestId) {
        const w = this.waiting.get(env.requestId);
        const entry = w && this.frames.get(w.frameId);
        if (!w || !entry || entry.el.contentWindow !== ev.source) return; // not from the frame we asked
        this.waiting.delete(env.requestId);
        w.resolve(env.payload);
      }
    },
  };

  // ---- transport: BridgeClient (WebSocket fast path, SSE + POST baseline) ------------------------------

  /** @param {number} ms */
  const delay = (ms) => new Promise((r) => setTimeout(r, ms));

  class BridgeClient {
    /** @param {string} base @param {{channel: string, attach: string, shard: string, frames: () => FrameInfo[], onExec: (f: ExecFrame) => void}} opts */
    constructor(base, opts) {
      this.base = base;
      this.opts = opts;
      /** @type {'idle'|'connecting'|'connected'|'stopped'} */ this.state = 'idle';
      /** @type {''|'ws'|'sse'} */ this.channel = '';
      /** @type {{instanceId: string, secret: string}|null} */ this.id = this.loadId();
      this.reclaim = false;
      this.maxResult = 512000;
      /** @type {WebSocket|null} */ this.ws = null;
      /** @type {EventSource|null} */ this.es = null;
      this.postBase = base;
      this.attempt = 0;
      /** When the WebSocket last failed to open (0: never). SSE is used until WS_RETRY_MS later, then WS is tried again. */
      this.wsFailedAt = 0;
      this.gen = 0;
    }

    loadId() {
      try {
        const raw = sessionStorage.getItem(STORAGE_KEY);
        this.reclaim = sessionStorage.getItem(LEAVING_KEY) === '1';
        sessionStorage.removeItem(LEAVING_KEY);
        const v = raw ? JSON.parse(raw) : null;
        return v && typeof v.instanceId === 'string' && typeof v.secret === 'string' ? v : null;
      } catch (_) {
        return null;
      }
    }

    get pageId() {
      return this.id ? this.id.instanceId : null;
    }

    /** Register (or renew), then open the fastest channel that works. Retries by itself forever. */
    async connect() {
      if (this.state === 'stopped') return;
      const gen = ++this.gen;
      this.state = 'connecting';
      for (;;) {
        try {
          await this.register();
          if (gen !== this.gen) return;
          const wsRested = Date.now() - this.wsFailedAt > WS_RETRY_MS;
          const useWs = this.opts.channel === 'ws' || (this.opts.channel === 'auto' && wsRested && typeof WebSocket !== 'undefined');
          if (useWs) {
            const ok = await this.openWs(gen).catch(() => false); // a throwing WebSocket (proxy, policy) counts as failed
            if (ok) return;
            if (this.opts.channel === 'auto') this.wsFailedAt = Date.now();
          } else {
            if (await this.openSse(gen)) return;
          }
        } catch (_) { /* bridge not up yet: retry below */ }
        if (gen !== this.gen || this.stopped()) return;
        this.attempt++;
        await delay(Math.min(2000, 100 * Math.pow(2, Math.min(this.attempt, 5))));
      }
    }

    async register() {
      const loc = location;
      /** @type {RegisterRequest} */
      const req = {
        v: PROTOCOL_VERSION,
        instanceId: this.id ? this.id.instanceId : null,
        secret: this.id ? this.id.secret : null,
        reclaim: this.reclaim,
        url: loc.href.slice(0, 4000),
        title: (document.title || '').slice(0, 4000),
        origin: loc.origin,
        port: loc.port ? Number(loc.port) : null,
        attach: this.opts.attach,
        frames: this.opts.frames(),
      };
      const res = await fetch(this.base + '/bridge/register', {
        method: 'POST', body: JSON.stringify(req), headers: { 'Content-Type': 'text/plain' }, cache: 'no-store',
      });
      if (!res.ok) throw new Error('register failed: HTTP ' + res.status);
      /** @type {RegisterReply} */
      const reply = await res.json();
      this.id = { instanceId: reply.instanceId, secret: reply.secret };
      this.reclaim = true; // from now on this id is ours: reconnects claim it back
      this.maxResult = reply.maxResult;
      try { sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.id)); } catch (_) { /* storage off */ }
    }

    query() {
      const id = /** @type {{instanceId: string, secret: string}} */ (this.id);
      return '?i=' + encodeURIComponent(id.instanceId) + '&t=' + encodeURIComponent(id.secret);
    }

    /** @param {number} gen @returns {Promise<boolean>} */
    openWs(gen) {
      return new Promise((resolve) => {
        let opened = false;
        const ws = new WebSocket(this.base.replace(/^http/, 'ws') + '/bridge/ws' + this.query());
        const timer = setTimeout(() => { if (!opened) { ws.close(); resolve(false); } }, 3000);
        ws.onopen = () => {
          opened = true;
          clearTimeout(timer);
          this.ws = ws;
          this.connected('ws');
          resolve(true);
        };
        ws.onmessage = (ev) => this.onDown(String(ev.data));
        ws.onclose = (ev) => {
          clearTimeout(timer);
          if (this.ws === ws) this.ws = null;
          if (!opened) { resolve(ev.code === 4401); if (ev.code === 4401) this.lost(gen); return; }
          this.lost(gen);
        };
      });
    }

    /** The SSE stream gets its own *.localhost host per tab so 200 tabs do not share 6 connections. */
    sseBase() {
      const u = new URL(this.base);
      const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost';
      if (this.opts.shard === 'off' || !loopback || !this.id) return this.base;
      return u.protocol + '//dbg-' + this.id.instanceId + '.localhost' + (u.port ? ':' + u.port : '');
    }

    /** @param {number} gen @returns {Promise<boolean>} */
    openSse(gen) {
      const tryBase = (/** @type {string} */ base) => new Promise((resolve) => {
        const es = new EventSource(base + '/bridge/events' + this.query());
        let opened = false;
        es.onopen = () => {
          opened = true;
          this.es = es;
          this.postBase = base;
          this.connected('sse');
          resolve(true);
        };
        es.onmessage = (ev) => this.onDown(String(ev.data));
        es.onerror = () => {
          es.close(); // never let EventSource retry on its own: re-register first
          if (this.es === es) this.es = null;
          if (!opened) resolve(false);
          else this.lost(gen);
        };
      });
      const sharded = this.sseBase();
      return tryBase(sharded).then((ok) => (ok || sharded === this.base ? ok : tryBase(this.base)));
    }

    /** @param {'ws'|'sse'} channel */
    connected(channel) {
      this.state = 'connected';
      this.channel = channel;
      this.attempt = 0;
      window.dispatchEvent(new CustomEvent('dbg:status', { detail: { state: 'connected', channel, pageId: this.pageId } }));
    }

    /** @param {number} gen */
    lost(gen) {
      if (gen !== this.gen || this.state === 'stopped') return;
      this.state = 'connecting';
      this.channel = '';
      window.dispatchEvent(new CustomEvent('dbg:status', { detail: { state: 'connecting' } }));
      void this.connect();
    }

    /** @param {string} text */
    onDown(text) {
      let msg;
      try { msg = JSON.parse(text); } catch (_) { return; }
      if (msg && msg.type === 'exec') this.opts.onExec(/** @type {ExecFrame} */ (msg));
    }

    /** Send one message up: on the WebSocket, else as a text/plain POST (no CORS preflight). @param {UpMessage} msg */
    send(msg) {
      if (this.ws && this.ws.readyState === WebSocket.OPEN) {
        this.ws.send(JSON.stringify(msg));
        return;
      }
      if (!this.id) return;
      const body = JSON.stringify(Object.assign({ instanceId: this.id.instanceId, secret: this.id.secret }, msg));
      fetch(this.postBase + '/bridge/result', { method: 'POST', body, headers: { 'Content-Type': 'text/plain' }, keepalive: body.length < 60000 })
        .catch(() => { /* the bridge is gone; the reconnect loop takes over */ });
    }

    /** Tell the bridge we are unloading so waiting calls fail now, and mark the tab so it reclaims its id. */
    bye() {
      try { sessionStorage.setItem(LEAVING_KEY, '1'); } catch (_) { /* storage off */ }
      if (!this.id) return;
      if (this.ws && this.ws.readyState === WebSocket.OPEN) {
        this.ws.send(JSON.stringify({ type: 'bye' }));
        return;
      }
      const body = JSON.stringify({ instanceId: this.id.instanceId, secret: this.id.secret, type: 'bye' });
      try { navigator.sendBeacon(this.postBase + '/bridge/result', new Blob([body], { type: 'text/plain' })); } catch (_) { /* best effort */ }
    }

    /** True once stop() was called (a method, so type narrowing of `state` does not hide the change). */
    stopped() {
      return this.state === 'stopped';
    }

    stop() {
      this.state = 'stopped';
      this.gen++;
      if (this.ws) this.ws.close();
      if (this.es) this.es.close();
      this.ws = null;
      this.es = null;
    }
  }

  // ---- boot ---------------------------------------------------------------------------------------------

  /** The same-origin ancestor window that runs the host client, or null when this window is the host. */
  function findHostWindow() {
    /** @type {Window} */
    let w = window;
    /** @type {Window|null} */
    let host = null;
    while (w !== w.parent) {
      try {
        const p = /** @type {any} */ (w.parent);
        if (p.origin !== window.origin) break;
        if (p.__dbg && p.__dbg.role === 'host') host = p;
        w = p;
      } catch (_) {
        break;
      }
    }
    return host;
  }

  /** @param {Window|null} w */
  function isSameOriginAncestor(w) {
    /** @type {Window} */
    let cur = window;
    while (cur !== cur.parent) {
      cur = cur.parent;
      if (cur === w) return true;
    }
    return false;
  }

  /**
   * Build the client for this window: a host (talks to the bridge) or a frame agent (talks to its host).
   * @param {{bridge?: string, channel?: string, attach?: string, shard?: string}} [config]
   */
  function createDbgLauncher(config) {
    const cfg = config || {};
    const hostWin = findHostWindow();
    const role = hostWin ? 'frame' : 'host';

    if (role === 'frame') {
      const ctx = { frameId: '', role: /** @type {'frame'} */ ('frame'), maxResult: 512000 };
      window.addEventListener('message', async (ev) => {
        if (ev.origin !== window.origin || !isEnvelope(ev.data) || !isSameOriginAncestor(/** @type {Window} */ (ev.source))) return;
        const env = ev.data;
        if (env.type === 'dbg_hello') {
          /** @type {Window} */ (ev.source).postMessage({ __dbg: 1, type: 'dbg_ready' }, window.origin);
          return;
        }
        if (env.type !== 'dbg_exec') return;
        ctx.frameId = env._f || '';
        const payload = env.payload || {};
        const out = await runLocal(String(payload.command), payload.params || {}, Object.assign({}, ctx, { maxResult: Number(payload.params && payload.params.__maxResult) || ctx.maxResult }));
        /** @type {Window} */ (ev.source).postMessage({ __dbg: 1, type: 'dbg_exec_result', payload: out, requestId: env.requestId, _f: env._f }, window.origin);
      });
      /** @type {Window} */ (hostWin).postMessage({ __dbg: 1, type: 'dbg_ready' }, window.origin);
      return { version: VERSION, role, commands: COMMANDS, get frameId() { return ctx.frameId; }, status: () => ({ state: 'frame' }) };
    }

    const client = new BridgeClient((cfg.bridge || BRIDGE).replace(/\/+$/, ''), {
      channel: cfg.channel || option('channel', 'auto'),
      attach: cfg.attach || option('attach', 'script'),
      shard: cfg.shard || option('shard', 'auto'),
      frames: () => router.frameList(),
      onExec: (frame) => { void execFrame(frame); },
    });

    /** @param {ExecFrame} frame */
    async function execFrame(frame) {
      const ctx = { frameId: frame.frameId, role: /** @type {'host'} */ ('host'), maxResult: client.maxResult };
      let out;
      if (frame.frameId === 'host') out = await runLocal(frame.command, frame.params, ctx);
      else {
        const params = Object.assign({}, frame.params, { __maxResult: client.maxResult });
        out = await router.exec(frame.frameId, frame.command, params, frame.timeout * 1000);
        if (frame.command === 'screenshot' && out.ok && out.result && out.result.frameBox) {
          try { out = { ok: true, result: await capture(out.result.frameBox, client.maxResult) }; } catch (e) { out = { ok: false, error: toErrorInfo(e) }; }
        }
      }
      client.send(/** @type {ResultMsg} */ (Object.assign({ type: 'result', requestId: frame.requestId }, out)));
    }

    window.addEventListener('message', (ev) => router.onMessage(ev));
    sendUp = (msg) => client.send(msg);
    // Hotkeys for the human: Alt+Shift+P toggles the element picker, Alt+Shift+M writes to the agent.
    window.addEventListener('keydown', (ev) => {
      if (!ev.altKey || !ev.shiftKey) return;
      if (ev.code === 'KeyP') { ev.preventDefault(); if (human.picking) human.stopPicker(); else human.startPicker(null); }
      else if (ev.code === 'KeyM') { ev.preventDefault(); human.compose(); }
    }, true);
    router.onChange = () => {
      if (client.state === 'connected') client.send({ type: 'frames', frames: router.frameList(), url: location.href, title: document.title });
    };
    window.addEventListener('dbg:status', (ev) => {
      const detail = /** @type {CustomEvent} */ (ev).detail;
      if (detail.state === 'connected' && router.onChange) router.onChange();
      if (EXT_NONCE) ext.post({ type: 'status', state: detail.state, channel: detail.channel || '', pageId: client.pageId ? client.pageId + '/host' : null });
    });
    ext.install();
    window.addEventListener('pagehide', () => client.bye());
    window.addEventListener('pageshow', (ev) => { if (ev.persisted) void client.connect(); });

    const start = () => { router.scan(); void client.connect(); };
    if (document.readyState === 'loading') {
      // Register at once (so the tab is listed early), and rescan frames when the DOM is complete.
      void client.connect();
      document.addEventListener('DOMContentLoaded', () => router.scan());
    } else start();

    return {
      version: VERSION,
      role,
      commands: COMMANDS,
      get pageId() { return client.pageId ? client.pageId + '/host' : null; },
      status: () => ({ state: client.state, channel: client.channel, pageId: client.pageId ? client.pageId + '/host' : null, frames: router.frameList() }),
      connect: () => client.connect(),
      disconnect: () => client.stop(),
      pick: () => human.startPicker(null),
      message: () => human.compose(),
    };
  }

  consoleLog.install();
  net.install();
  /** @type {any} */ (window).createDbgLauncher = createDbgLauncher;
  /** @type {any} */ (window).__dbg = createDbgLauncher();
})();
