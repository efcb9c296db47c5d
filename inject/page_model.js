// @ts-check
// dbg-bridge page client, part: page model: semantic snapshot with refs, find, act. Shares one IIFE with the other parts (inject/__init__.py).

/** A tag for this document: refs carry it, so a ref from before a reload can never hit a new element. */
const DOC_TAG = String.fromCharCode(97 + Math.floor(Math.random() * 26), 97 + Math.floor(Math.random() * 26));
const REF_SEQ_KEY = '__dbg_ref_seq';
/** Ref numbers go on across the tab's reloads and same-origin navigations (sessionStorage), so a bare ref ('e12',
 * as the lean snapshot writes them) from an earlier document is below this document's first number: stale. */
const FIRST_REF = (() => { try { return Math.max(1, Number(sessionStorage.getItem(REF_SEQ_KEY)) || 1); } catch (_) { return 1; } })();
/** A ref with or without its document tag. */
const REF_PATTERN = /^e(\d+)(?:@([a-z]{2}))?$/;
const refs = {
  /** @type {Map<string, WeakRef<Element>>} */ byRef: new Map(),
  /** @type {WeakMap<Element, string>} */ byEl: new WeakMap(),
  next: FIRST_REF,
  snapshots: 0,
  /** @param {Element} el */
  of(el) {
    let r = this.byEl.get(el);
    if (!r) {
      r = 'e' + this.next++ + '@' + DOC_TAG;
      this.byEl.set(el, r);
      this.byRef.set(r, new WeakRef(el));
      try { sessionStorage.setItem(REF_SEQ_KEY, String(this.next)); } catch (_) { /* no storage: tags still guard */ }
    }
    return r;
  },
  /** @param {string} ref @returns {Element} */
  resolve(ref) {
    const r = String(ref).trim();
    const m = REF_PATTERN.exec(r);
    if (!m) throw new DbgError('bad_ref', "'" + r + "' is not a ref; refs look like 'e12' or 'e12@ab' and come from page_snapshot or page_find.");
    if ((m[2] && m[2] !== DOC_TAG) || (!m[2] && Number(m[1]) < FIRST_REF)) {
      throw new DbgError('stale_ref', 'Ref ' + r + ' is from an earlier document of this page (it reloaded or navigated). Take a new page_snapshot.');
    }
    const w = this.byRef.get('e' + m[1] + '@' + DOC_TAG);
    const el = w && w.deref();
    if (!el || !el.isConnected) {
      throw new DbgError('stale_ref', 'Ref ' + r + ' points to an element that is no longer in the page' +
        (m[2] ? '' : ' (or to none yet in this document)') + '. Take a new page_snapshot or page_find.');
    }
    return el;
  },
};

/** input type -> role (a color input is a textbox, as Chromium's accessibility tree and Playwright name it). */
const INPUT_ROLES = /** @type {Record<string, string>} */ ({
  button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
  range: 'slider', number: 'spinbutton', search: 'searchbox', file: 'button',
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
  // <header>/<footer> are the page's banner/contentinfo only outside sectioning content (HTML-AAM)
  if ((tag === 'HEADER' || tag === 'FOOTER') && el.parentElement && el.parentElement.closest('article,aside,main,nav,section')) return '';
  if (TAG_ROLES[tag]) return TAG_ROLES[tag];
  if (/** @type {HTMLElement} */ (el).isContentEditable && el.getAttribute('contenteditable') !== null) return 'textbox';
  return '';
}

/** @param {string} s @param {number} n */
const clip = (s, n) => { const t = normText(s); return t.length > n ? t.slice(0, n - 1) + '…' : t; };

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

/** Roles named from their content (ARIA 1.2 "name from: contents", plus label and listitem), whatever wrappers
 * (presentation, none, generic divs and spans) sit between: a grid cell's text under role=presentation spans. */
const NAME_FROM_CONTENT = /^(button|cell|checkbox|columnheader|gridcell|heading|link|menuitem|menuitemcheckbox|menuitemradio|option|radio|row|rowheader|sectionhead|switch|tab|tooltip|treeitem|label|listitem)$/;

/** A simplified accessible name: aria-labelledby, aria-label, labels, alt/title/placeholder, then text. @param {Element} el @param {string} role */
function nameOf(el, role) {
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const root = /** @type {Document|ShadowRoot} */ (el.getRootNode());
    const text = by.split(/\s+/).map((id) => {
      const n = typeof root.getElementById === 'function' ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      return n ? (n === el || notRendered(n) ? normText(n.textContent || '') : elementText(n)) : '';
    }).join(' ');
    if (text.trim()) return clip(text, 100);
  }
  const aria = el.getAttribute('aria-label');
  if (aria && aria.trim()) return clip(aria, 100);
  const labels = labelsOf(el);
  if (labels && labels.length) return clip(Array.from(labels).map((l) => labelText(/** @type {Element} */ (l))).join(' '), 100);
  if (el.tagName === 'INPUT' && /^(button|submit|reset)$/i.test(el.getAttribute('type') || '')) return clip(/** @type {HTMLInputElement} */ (el).value, 100);
  const alt = el.getAttribute('alt');
  if (alt) return clip(alt, 100);
  // name from content before title and placeholder, as the accessible-name computation does
  if (NAME_FROM_CONTENT.test(role)) {
    const content = clip(elementText(el), 100);
    if (content) return content;
  }
  return clip(el.getAttribute('title') || el.getAttribute('placeholder') || '', 100);
}

/** A label's own words, without the text of the controls inside it (a select's options, say). @param {Element} label */
function labelText(label) {
  let t = '';
  const walk = (/** @type {Element} */ n) => {
    for (const c of Array.from(flatChildren(n))) {
      if (c.nodeType === 3) t += c.textContent;
      else if (c.nodeType === 1 && !/^(SELECT|TEXTAREA|INPUT|BUTTON|OPTION)$/.test(/** @type {Element} */ (c).tagName)) t += ' ' + rawText(/** @type {Element} */ (c));
    }
  };
  walk(label);
  return t;
}

/** @param {Element} el */
function hidden(el) {
  if (el.getAttribute('aria-hidden') === 'true' || /** @type {HTMLElement} */ (el).hidden) return true;
  return notRendered(el);
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


const FORM_CONTROL = /^(INPUT|SELECT|TEXTAREA)$/;
/** What a click on text lands on: the control or link around the matched text. */
const ACTIONABLE = 'button,a[href],summary,label,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=checkbox],[role=switch]';

/** Resolve a target given as {ref} | {selector} | {text} to exactly one element, or fail with candidates.
 * Selectors and text reach into open shadow roots. @param {Record<string, any>} t */
function target(t) {
  if (t.ref) return refs.resolve(t.ref);
  if (t.selector) return pickOne(deepQueryAll(String(t.selector)), "selector '" + t.selector + "'", t.nth);
  if (t.text) {
    const match = /** @type {(s: string) => boolean} */ (textMatcher({ text: t.text, exact: t.exact }));
    const formish = /^(fill|type|select|check|uncheck)$/.test(String(t.action || ''));
    const isControl = (/** @type {Element} */ el) => FORM_CONTROL.test(el.tagName) || /** @type {HTMLElement} */ (el).isContentEditable;
    // for form actions only controls (and the labels that stand for them) count
    const found = textMatches(match, formish ? (el) => isControl(el) || el.tagName === 'LABEL' : undefined);
    const all = Array.from(new Set(found.map((el) => {
      if (el.tagName === 'LABEL' && /** @type {HTMLLabelElement} */ (el).control) return /** @type {HTMLLabelElement} */ (el).control;
      // text inside a button or link: act on the button (its disabled state, its ref)
      const up = formish ? null : el.closest(ACTIONABLE);
      return up && up !== el && withTextCache(() => match(elementText(up)) || match(nameOf(up, roleOf(up) || 'button'))) ? up : el;
    }))).filter((el) => !!el && (!formish || isControl(/** @type {Element} */ (el))));
    return pickOne(/** @type {Element[]} */ (all), "text '" + t.text + "'", t.nth);
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
  const list = withTextCache(() => all.slice(0, 8).map((el) => refs.of(el) + ' ' + (roleOf(el) || el.tagName.toLowerCase()) + ' ' +
    JSON.stringify(nameOf(el, roleOf(el) || 'button') || clip(elementText(el), 80))).join('; '));
  throw new DbgError('ambiguous_target', what + ' matches ' + all.length + ' elements: ' + list + (all.length > 8 ? '; …' : '') + '. Pass one ref, or nth.');
}

