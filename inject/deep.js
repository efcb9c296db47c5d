// @ts-check
// dbg-bridge page client, part: the page as rendered across open shadow roots: the flat tree, piercing selectors. Shares one IIFE with the other parts (inject/__init__.py).

/**
 * The nodes an element renders, in order (the flat tree): a shadow host shows its shadow root's children, a <slot>
 * the nodes assigned to it (or its fallback content), any other element its children. Light children of a host
 * that no slot takes are not rendered, so they are not here.
 * @param {Element|ShadowRoot|Document} node @returns {ArrayLike<Node>}
 */
function flatChildren(node) {
  const el = /** @type {Element} */ (node);
  if (el.shadowRoot) return el.shadowRoot.childNodes;
  if (el.tagName === 'SLOT' && typeof (/** @type {HTMLSlotElement} */ (el)).assignedNodes === 'function') {
    return /** @type {HTMLSlotElement} */ (el).assignedNodes({ flatten: true });
  }
  return node.childNodes;
}

/** The elements among flatChildren. @param {Element|ShadowRoot|Document} node @returns {Element[]} */
function flatElementChildren(node) {
  const out = [];
  const kids = flatChildren(node);
  for (let i = 0; i < kids.length; i++) if (kids[i].nodeType === 1) out.push(/** @type {Element} */ (kids[i]));
  return out;
}

/** Every element at or below root, light DOM and open shadow trees alike, in tree order (a host's shadow tree
 * right after the host, before its light children). @param {Element|ShadowRoot|Document} root @returns {Element[]} */
function deepElements(root) {
  const out = [];
  /** @type {Array<Element|ShadowRoot|Document>} */
  const stack = [root];
  while (stack.length) {
    const n = /** @type {Element|ShadowRoot|Document} */ (stack.pop());
    if (n.nodeType === 1) out.push(/** @type {Element} */ (n));
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    if (n.nodeType === 1 && /** @type {Element} */ (n).shadowRoot) stack.push(/** @type {ShadowRoot} */ (/** @type {Element} */ (n).shadowRoot));
  }
  return out;
}

/** Does `outer` contain `inner` in the composed tree (across shadow boundaries)? @param {Node} outer @param {Node} inner */
function deepContains(outer, inner) {
  for (let n = /** @type {Node|null} */ (inner); n; n = n.parentNode || /** @type {ShadowRoot} */ (n).host || null) {
    if (n === outer) return true;
  }
  return false;
}

/** The focused element, inside open shadow roots too. */
function deepActiveElement() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

/** Split a selector at its `>>>` shadow-piercing combinators (outside quotes and brackets). @param {string} selector */
function selectorSteps(selector) {
  const steps = [];
  let depth = 0, quote = '', start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (quote) { if (c === '\\') i++; else if (c === quote) quote = ''; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (depth === 0 && selector.startsWith('>>>', i)) { steps.push(selector.slice(start, i).trim()); start = i + 3; i += 2; }
  }
  steps.push(selector.slice(start).trim());
  const probe = document.createDocumentFragment();
  for (const s of steps) {
    try { if (!s) throw new Error('empty step around >>>'); probe.querySelector(s); } catch (e) {
      throw new DbgError('bad_selector', "'" + selector + "' is not a valid selector" + (steps.length > 1 ? " (step '" + s + "')" : '') +
        ': ' + /** @type {Error} */ (e).message + ". Write CSS; 'a >>> b' finds b inside a's shadow tree.");
    }
  }
  return steps;
}

/**
 * Every element matching a CSS selector anywhere in the page, open shadow roots included, in tree order. Each CSS
 * step matches within one tree (document or one shadow root: CSS combinators stop at shadow boundaries);
 * `host-sel >>> inner-sel` finds inner-sel anywhere below a host-sel match, its shadow tree included.
 * @param {string} selector @param {Element|Document} [scope] @returns {Element[]}
 */
function deepQueryAll(selector, scope) {
  const steps = selectorSteps(String(selector));
  /** @type {Array<Element|Document>} */
  let scopes = [scope || document];
  /** @type {Element[]} */
  let found = [];
  for (const step of steps) {
    const seen = new Set();
    found = [];
    for (const s of scopes) {
      const all = deepElements(s);
      const order = new Map(all.map((el, i) => [el, i]));
      /** @type {Array<Element|Document|ShadowRoot>} */
      const roots = [s];
      for (const el of all) if (el.shadowRoot) roots.push(el.shadowRoot);
      const hits = [];
      for (const r of roots) for (const el of Array.from(r.querySelectorAll(step))) if (!seen.has(el) && el !== s) { seen.add(el); hits.push(el); }
      hits.sort((a, b) => /** @type {number} */ (order.get(a)) - /** @type {number} */ (order.get(b)));
      found.push(...hits);
    }
    scopes = found;
  }
  return found;
}

/** The first deepQueryAll match in tree order, or null. @param {string} selector */
function deepQuery(selector) {
  return deepQueryAll(selector)[0] || null;
}
