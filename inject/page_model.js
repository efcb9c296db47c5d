// @ts-check
// dbg-bridge page client, part: page model: semantic snapshot with refs, find, act. Shares one IIFE with the other parts (inject/__init__.py).

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
