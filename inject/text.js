// @ts-check
// dbg-bridge page client, part: text as a person reads it, and matching on it. Shares one IIFE with the other parts (inject/__init__.py).

/** Characters nobody sees: zero-width space/joiners, word joiner, BOM, soft hyphen. */
const INVISIBLE_CHARS = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;
/** Elements whose boundaries a reader sees as a break between words. */
const BLOCK_TAGS = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DETAILS', 'DIALOG', 'DIV', 'DL', 'DT',
  'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN',
  'NAV', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TD', 'TH', 'TR', 'UL', 'OPTION', 'LEGEND', 'IMG']);
const NO_TEXT_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TEXTAREA', 'INPUT', 'SELECT', 'IFRAME', 'OBJECT', 'SVG']);

/** Whitespace collapsed, invisible characters dropped, trimmed. @param {string} s */
function normText(s) {
  return String(s).replace(INVISIBLE_CHARS, '').replace(/\s+/g, ' ').trim();
}

/** Not drawn at all (display: none, visibility: hidden, closed <details>…); display: contents still draws its children. @param {Element} el */
function notRendered(el) {
  const known = unseenCache && unseenCache.get(el);
  if (known !== undefined) return known;
  const v = notRenderedNow(el);
  if (unseenCache) unseenCache.set(el, v);
  return v;
}

/** @param {Element} el */
function notRenderedNow(el) {
  const anyEl = /** @type {any} */ (el);
  if (typeof anyEl.checkVisibility === 'function') {
    if (anyEl.checkVisibility({ visibilityProperty: true })) return false;
    return el.tagName !== 'SLOT' && getComputedStyle(el).display !== 'contents';
  }
  const cs = getComputedStyle(el);
  return cs.display === 'none' || cs.visibility === 'hidden';
}

/** element -> its raw rendered text, for the length of one lookup (set by withTextCache). @type {Map<Element, string>|null} */
let textCache = null;

/** element -> not rendered, for the length of one lookup. @type {Map<Element, boolean>|null} */
let unseenCache = null;

/** Run fn with one text cache (every element's text is computed once per lookup). @template T @param {() => T} fn @returns {T} */
function withTextCache(fn) {
  if (textCache) return fn();
  textCache = new Map();
  unseenCache = new Map();
  try { return fn(); } finally { textCache = null; unseenCache = null; }
}

/** The text an element shows, across its descendants, shadow trees and slotted nodes, unnormalized. @param {Element} el @returns {string} */
function rawText(el) {
  const cached = textCache && textCache.get(el);
  if (cached !== undefined && cached !== null) return cached;
  let t = '';
  const tag = el.tagName.toUpperCase();
  if (tag === 'INPUT') {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'submit' || type === 'button' || type === 'reset') t = /** @type {HTMLInputElement} */ (el).value;
  } else if (!NO_TEXT_TAGS.has(tag) && !notRendered(el)) {
    const kids = flatChildren(el);
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      if (k.nodeType === 3) t += k.nodeValue;
      else if (k.nodeType === 1) t += rawText(/** @type {Element} */ (k));
    }
  }
  if (BLOCK_TAGS.has(tag)) t = ' ' + t + ' ';
  if (textCache) textCache.set(el, t);
  return t;
}

/** What a person reads in an element: its rendered text, whitespace collapsed, invisible characters gone. @param {Element} el */
function elementText(el) {
  return normText(rawText(el));
}

/** The runs of text directly in el, between its child elements (so exact and anchored regexes can match the
 * words of `<div><span>POST</span> Send it</div>` without its children's). @param {Element} el */
function ownRuns(el) {
  const runs = [];
  let run = '', elements = false;
  const kids = flatChildren(el);
  for (let i = 0; i < kids.length; i++) {
    if (kids[i].nodeType === 3) run += kids[i].nodeValue;
    else if (kids[i].nodeType === 1) { elements = true; if (run.trim()) runs.push(run); run = ''; }
  }
  if (run.trim()) runs.push(run);
  return elements ? runs : []; // without child elements the one run is the whole text, already tested
}

/**
 * A test on text: substring (case-insensitive), exact (whole text, case-sensitive) or a regex. A text written as
 * /pattern/flags is a regex. Both sides are normalized first.
 * @param {{text?: any, regex?: any, exact?: any}} spec @returns {((s: string) => boolean)|null}
 */
function textMatcher(spec) {
  let re = null;
  const literal = spec.text != null && spec.text !== '' ? String(spec.text) : '';
  const m = /^\/(.+)\/([dgimsuy]*)$/.exec(literal);
  try {
    if (spec.regex) re = new RegExp(String(spec.regex), 'i');
    else if (m) re = new RegExp(m[1], m[2].replace('g', ''));
  } catch (e) {
    throw new DbgError('bad_regex', 'Invalid regex: ' + /** @type {Error} */ (e).message + '. Write a JavaScript regex, e.g. ^Count is \\d+$.');
  }
  if (re) { const r = re; return (s) => r.test(normText(s)); }
  if (!literal) return null;
  const want = normText(literal);
  if (spec.exact) return (s) => normText(s) === want;
  const low = want.toLowerCase();
  return (s) => normText(s).toLowerCase().includes(low);
}

/**
 * The innermost rendered elements whose accessible name or text matches: an element counts when no candidate
 * below it matches too, so `<p><strong>2</strong> items left</p>` answers the <p> for "2 items left" and the
 * <strong> for "2". `candidate` narrows who may match (a role, a selector's matches, form controls).
 * @param {(s: string) => boolean} match @param {(el: Element, role: string) => boolean} [candidate]
 * @param {Element} [root] @returns {Element[]}
 */
function textMatches(match, candidate, root) {
  return withTextCache(() => {
    /** @type {Element[]} */
    const out = [];
    /** @param {Element} el @returns {boolean} whether el or something below it matched */
    const visit = (el) => {
      if (SKIP_TAGS.has(el.tagName) || notRendered(el)) return false;
      let below = false;
      for (const k of flatElementChildren(el)) if (visit(k)) below = true;
      if (below) return true;
      const role = roleOf(el);
      if (candidate && !candidate(el, role)) return false;
      if (el.getAttribute('aria-hidden') === 'true' && !elementText(el)) return false;
      const name = role ? nameOf(el, role) : '';
      if ((name && match(name)) || match(rawText(el)) || ownRuns(el).some(match)) { out.push(el); return true; }
      return false;
    };
    visit(root || document.body || document.documentElement);
    return out;
  });
}
