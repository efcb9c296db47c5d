// @ts-check
// dbg-bridge page client, part: source lookup: compile-time attributes, then framework debug info. Shares one IIFE with the other parts (inject/__init__.py).

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
    return { file, line: Number(m[2]), column: Number(m[3]), url: m[1] };
  }
  return null;
}

/** Where el comes from: file:line:col when known, how it was found (`via`), and its components from inside out.
 * A position taken from a stack is in the code the dev server compiled: `generated` says where (the `source`
 * command adds that module's source map, and the bridge maps it back to the file as written).
 * @param {Element} el @returns {SourceInfo} */
function sourceOf(el) {
  /** @type {{file: string, line: number|null, column: number|null}|null} */
  let loc = null;
  let via = 'unknown';
  /** @type {string[]} */
  const components = [];
  /** @type {{url: string, line: number, column: number}|null} */
  let generated = null;
  /** @type {Element|null} */
  let attr = null;
  for (let at = /** @type {Element|null} */ (el); at && !attr; at = hostOf(at)) attr = at.closest('[data-dbg-source]');
  if (attr) { loc = parseLoc(attr.getAttribute('data-dbg-source') || ''); via = 'attribute'; }
  const anyEl = /** @type {any} */ (el);
  const fiberKey = Object.keys(anyEl).find((k) => k.startsWith('__reactFiber$') || k.startsWith('__reactInternalInstance$'));
  if (fiberKey) {
    for (let f = anyEl[fiberKey]; f; f = f.return) {
      const t = f.type;
      const name = t && typeof t !== 'string' ? (t.displayName || t.name || (t.render && (t.render.displayName || t.render.name))) : '';
      if (name && components[components.length - 1] !== name) components.push(name);
      if (!loc && f._debugSource) { loc = { file: f._debugSource.fileName, line: f._debugSource.lineNumber, column: f._debugSource.columnNumber || null }; via = 'react'; }
      if (!loc && f._debugStack && f._debugStack.stack) { const fr = appFrame(f._debugStack.stack); if (fr) { loc = fr; via = 'react'; generated = { url: fr.url, line: fr.line, column: fr.column }; } }
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
  const pv = fiberKey || anyEl.__vueParentComponent ? null : preactVNode(el);
  if (pv) {
    for (let v = pv.__; v && v.__; v = v.__) { // the root is the Fragment render() wraps the app in
      const t = v.type;
      const name = typeof t === 'function' ? t.displayName || t.name : '';
      if (name && components[components.length - 1] !== name) components.push(name);
    }
    const s = pv.__source; // written by the JSX dev transform (@preact/preset-vite's Babel): the position as written
    if (!loc && s && s.fileName) { loc = { file: s.fileName, line: s.lineNumber || null, column: s.columnNumber || null }; via = 'preact'; }
    if (via === 'unknown' && components.length) via = 'preact';
  }
  const svelte = anyEl.__svelte_meta;
  // Svelte 5's loc.line is already 1-based (its column 0-based, like Babel's)
  if (!loc && svelte && svelte.loc) { loc = { file: svelte.loc.file, line: svelte.loc.line, column: svelte.loc.column + 1 }; via = 'svelte'; }
  /** @type {SourceInfo} */
  const out = { file: loc ? loc.file : null, line: loc ? loc.line : null, column: loc ? loc.column : null, via, components };
  if (generated) out.generated = generated;
  if (via === 'vue' && out.file && out.line == null) {
    out.note = "Vue keeps each component's file (__file) but no element's line at run time: this is the file of the " +
      'component that rendered it. For file:line, tag the templates at build time (vite-plugin-dbg-bridge, sourceAttributes).';
  }
  if (via === 'unknown' || via === 'attribute') {
    const hosts = customElementChain(el);
    if (hosts.length) {
      const lit = hosts.some((h) => h.lit);
      out.components = components.concat(hosts.map((h) => h.name));
      if (via === 'unknown') {
        out.via = lit ? 'lit' : 'custom-element';
        out.note = (lit ? 'Lit' : 'Custom elements') + ' keep no source positions at run time: components names the ' +
          'elements (tag and class) from inside out; find the file by its customElements.define / @customElement(' +
          JSON.stringify(hosts[0].tag) + '). For file:line, tag the templates at build time or select a light-DOM element.';
      }
    }
  }
  return out;
}

/** @typedef {{file: string|null, line: number|null, column: number|null, via: string, components: string[], note?: string,
 *   generated?: {url: string, line: number, column: number, map?: SourceMapPart|null}}} SourceInfo
 * @typedef {{url: string, sources: string[], sourceRoot?: string, mappings: string, sourcesContent?: Array<string|null>}} SourceMapPart */

/** Characters of a source map's `mappings` sent to the bridge at most (a dev server's per-module maps are far smaller). */
const MAX_MAPPINGS = 200000;

/** The source map of a compiled module as its server gives it (inline, or the file its sourceMappingURL names), without
 * the sources' text unless `withText`: null when there is none, or it is too big to send. Same-origin fetches, from the
 * cache when it can. @param {string} url @param {boolean} [withText] @returns {Promise<SourceMapPart|null>} */
async function sourceMapOf(url, withText) {
  try {
    const res = await fetch(url, { cache: 'force-cache', credentials: 'same-origin' });
    if (!res.ok) return null;
    const code = await res.text();
    const at = code.lastIndexOf('sourceMappingURL=');
    if (at < 0) return null;
    const ref = code.slice(at + 17).split(/\s/)[0];
    let map;
    const inline = /^data:application\/json[^,]*;base64,(.*)$/.exec(ref);
    if (inline) map = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(inline[1]), (c) => c.charCodeAt(0))));
    else {
      const file = await fetch(new URL(ref, url).href, { cache: 'force-cache', credentials: 'same-origin' });
      if (!file.ok) return null;
      map = await file.json();
      url = new URL(ref, url).href;
    }
    if (!map || typeof map.mappings !== 'string' || !Array.isArray(map.sources) || map.mappings.length > MAX_MAPPINGS) return null;
    /** @type {SourceMapPart} */
    const part = { url, sources: map.sources.map(String), sourceRoot: typeof map.sourceRoot === 'string' ? map.sourceRoot : undefined, mappings: map.mappings };
    if (withText && Array.isArray(map.sourcesContent)) part.sourcesContent = map.sourcesContent;
    return part;
  } catch (_) {
    return null; // no map: the bridge says the position is the compiled one
  }
}

/** Preact 10's vnode for a DOM element: render() keeps the tree on its container (`__k`, the mangled `_children`),
 * each vnode its DOM node in `__e` and its parent in `__`. Searched from the nearest container, bounded.
 * @param {Element} el @returns {any} */
function preactVNode(el) {
  let box = /** @type {any} */ (el.parentNode);
  while (box && !(box.__k && typeof box.__k === 'object' && 'type' in box.__k)) box = box.parentNode;
  if (!box) return null;
  const stack = [box.__k];
  for (let seen = 0; stack.length && seen < 50000; seen++) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (v.__e === el && typeof v.type === 'string') return v;
    if (Array.isArray(v.__k)) for (const k of v.__k) stack.push(k);
  }
  return null;
}

/** The shadow host of el's tree, or null in the document. @param {Element} el @returns {Element|null} */
function hostOf(el) {
  const root = el.getRootNode();
  return root instanceof ShadowRoot ? root.host : null;
}

/** The custom elements el is in (itself included), inside out: tag, class name, whether Lit made it. @param {Element} el */
function customElementChain(el) {
  const out = [];
  for (let at = /** @type {Element|null} */ (el); at; at = at.parentElement || hostOf(at)) {
    const tag = at.tagName.toLowerCase();
    if (!tag.includes('-') || !customElements.get(tag)) continue;
    const ctor = /** @type {any} */ (at).constructor;
    const lit = !!(ctor && ('elementProperties' in ctor || '_$litElement$' in ctor)) || '_$litPart$' in /** @type {any} */ (at) || 'renderRoot' in at;
    out.push({ tag, name: (ctor && ctor.name && ctor.name !== 'HTMLElement' ? ctor.name + ' ' : '') + '<' + tag + '>', lit });
  }
  return out;
}
