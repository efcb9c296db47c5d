// @ts-check
// dbg-bridge page client, part: the effect of one action — what it changed in the page (DOM in the document and open
// shadow roots, focus, URL, scroll, a field's value, requests it started), so no action answers ok when nothing
// happened. Shares one IIFE with the other parts (inject/__init__.py).

/** @typedef {{mutations: number, focus: boolean, url: boolean, requests: number, value: boolean, scrolled: boolean, selection: boolean, moved?: boolean, lastAt: number}} Effect */

/** Our own UI (overlay, human panel) and the document head (a title marker) are not the app's effect. @param {Node} n */
function ownNode(n) {
  const el = n.nodeType === 1 ? /** @type {Element} */ (n) : n.parentElement;
  if (!el) return false;
  if (document.head && document.head.contains(el)) return true;
  for (let at = /** @type {Element|null} */ (el); at; at = hostOf(at)) {
    if (at.closest('dbg-overlay,dbg-human')) return true;
  }
  return false;
}

/** What a field or editor holds now (clipped): a form control's value, an EditContext's text, an editing host's text. @param {Element} el */
function heldText(el) {
  const e = /** @type {any} */ (el);
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return String(e.value);
  if (e.editContext) return String(e.editContext.text);
  const host = /** @type {HTMLElement} */ (el);
  return host.isContentEditable ? String(host.innerText) : '';
}

/** Whether a mutation changed something: an attribute or text to another value, nodes other than the same text put
 * back (an app that rewrites a label with what it already said changed nothing). @param {MutationRecord} m */
function realChange(m) {
  if (ownNode(m.target)) return false;
  if (m.type === 'attributes') return m.oldValue !== /** @type {Element} */ (m.target).getAttribute(/** @type {string} */ (m.attributeName));
  if (m.type === 'characterData') return m.oldValue !== m.target.nodeValue;
  const plain = (/** @type {NodeList} */ list) => Array.from(list).every((n) => n.nodeType === 3);
  if (plain(m.addedNodes) && plain(m.removedNodes)) {
    const text = (/** @type {NodeList} */ list) => Array.from(list).map((n) => n.nodeValue).join('');
    return text(m.addedNodes) !== text(m.removedNodes);
  }
  return true;
}

/** Start watching the page for what the next action changes; `stop()` says what it did. @param {Element} el */
function watchEffect(el) {
  let mutations = 0, lastAt = 0;
  const mo = new MutationObserver((list) => { for (const m of list) if (realChange(m)) { mutations++; lastAt = Date.now(); } });
  const opts = { subtree: true, childList: true, attributes: true, characterData: true, attributeOldValue: true, characterDataOldValue: true };
  mo.observe(document, opts);
  for (const host of deepElements(document.documentElement)) {
    if (host.shadowRoot && !host.matches('dbg-overlay,dbg-human')) mo.observe(host.shadowRoot, opts);
  }
  const focus = deepActiveElement();
  const url = location.href;
  const seq = net.seq;
  const value = heldText(el);
  const scrolls = scrollPositions(el);
  const selected = String(getSelection() || '');
  /** @returns {Effect} */
  const now = () => {
    for (const m of mo.takeRecords()) if (realChange(m)) { mutations++; lastAt = Date.now(); }
    return { mutations, lastAt, focus: deepActiveElement() !== focus, url: location.href !== url, requests: net.seq - seq,
      value: heldText(el) !== value, scrolled: scrollPositions(el) !== scrolls, selection: String(getSelection() || '') !== selected };
  };
  return {
    /** What changed so far (the watch goes on). */
    peek: now,
    /** What changed; the watch ends. @returns {Effect} */
    stop() { const e = now(); mo.disconnect(); return e; },
  };
}

/** The scroll offsets of the page and of el's scrolling ancestors, as one string to compare. @param {Element} el */
function scrollPositions(el) {
  const parts = [scrollX + ',' + scrollY];
  for (let at = /** @type {Element|null} */ (el); at; at = at.parentElement || hostOf(at)) {
    if (at.scrollTop || at.scrollLeft) parts.push(at.scrollLeft + ',' + at.scrollTop);
  }
  return parts.join('|');
}

/** Whether the action changed anything. Focus counts for keys only: a click moves focus wherever it lands, so a
 * click the app ignored would otherwise read as one that worked. A drag counts by what it left (dragPrint: the source
 * moved, the list or target changed), not by the classes a library puts on and takes off while dragging.
 * @param {Effect} e @param {string} kind */
const hadEffect = (e, kind) => kind === 'drag' ? !!(e.moved || e.url || e.requests) : !!(e.mutations || e.url || e.requests || e.value || e.scrolled || e.selection ||
  (e.focus && (kind === 'press' || kind === 'focus')));

/** Why an action that changed nothing probably did not, and what to try instead. @param {string} kind @param {Element} el
 * @param {boolean} trustedTried */
function noEffectHint(kind, el, trustedTried) {
  const real = trustedTried ? '' : ' Real input may work where synthetic events do not: trusted: true (see `input` in this answer for what is available here).';
  switch (kind) {
    case 'press':
      return 'The key changed nothing in the page: the focused element may not handle it, or the page waits for a browser-level action (Escape on a <dialog> is a close request, which synthetic keys cannot make).' + real;
    case 'click': case 'dblclick':
      return 'The ' + kind + ' changed nothing: the element may need another kind of input (a handler that checks isTrusted, double-click word selection), be a decoy behind the real control, or only work after another step.' + real + ' Or page_find the control by its text and act on that.';
    case 'hover':
      return 'Hovering changed nothing (no menu or tooltip appeared): the page may listen for real pointer moves.' + real;
    case 'drag':
      return 'The drag moved nothing: the source is where it was and the target area did not change. The page may start a drag only on real pointer input (or after a hold), or drop only on another spot.' +
        (trustedTried ? '' : ' Real input may work: trusted: true with the page in a browser on the bridge\'s desktop (desktop_open_url) sends a real press, moves and release.') +
        ' Or drag onto another element (to), or by an offset (dx, dy).';
    case 'type': case 'fill':
      return 'The field holds what it held before: the element may take text another way (an editor with its own input).' + real + ' Or click it first and type into what has focus.';
    default:
      return 'Nothing in the page changed.' + real;
  }
}

/** After an act: how long after its last change the page may take to start rendering the rest of what it caused (a
 * debounced resolve, a timer, a response body read after its request settled), how long the DOM must then stay
 * still, and the most this waits. */
const QUIET = { graceMs: 60, stillMs: 100, capMs: 1500 };

/** Wait (bounded) for what an act is still rendering: when the DOM changes again within graceMs of the act's last
 * change (`since`), until it has been still for stillMs (an expanding section whose body renders after a debounce, a
 * lazy panel), so the answer's `changed` and the next find see it. A page that changes nothing more answers graceMs
 * after the act's change; style-only changes (animations) count inside the element acted on only (a map panning
 * after an arrow key, then writing where it went), not elsewhere (a spinner). Answers the ms waited.
 * @param {number} capMs @param {number} since @param {Element|null} [on] the element the last action went to */
async function renderQuiet(capMs, since, on) {
  const t0 = Date.now();
  const base = since || t0;
  let last = 0;
  const mo = new MutationObserver((list) => {
    for (const m of list) {
      const styled = m.type === 'attributes' && m.attributeName === 'style';
      if ((!styled || (on && deepContains(on, m.target))) && !ownNode(m.target) && realChange(m)) { last = Date.now(); break; }
    }
  });
  const opts = { subtree: true, childList: true, attributes: true, characterData: true, attributeOldValue: true, characterDataOldValue: true };
  mo.observe(document, opts);
  for (const host of deepElements(document.documentElement)) {
    if (host.shadowRoot && !host.matches('dbg-overlay,dbg-human')) mo.observe(host.shadowRoot, opts);
  }
  try {
    const cap = Math.min(capMs, QUIET.capMs);
    for (;;) {
      if (!last && Date.now() - base >= QUIET.graceMs) break;
      await new Promise((r) => setTimeout(r, 10));
      const now = Date.now();
      if (now - t0 >= cap) break;
      if (!last ? now - base >= QUIET.graceMs : now - last >= QUIET.stillMs) break;
    }
  } finally { mo.disconnect(); }
  return Date.now() - t0;
}
