// @ts-check
// dbg-bridge page client, part: result rendering: any JS value -> a bounded JSON value. Shares one IIFE with the other parts (inject/__init__.py).

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
      return v.length > stringCap ? v.slice(0, stringCap) + '…[truncated: ' + v.length + ' chars in all]' : v;
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
      if (val === undefined) continue; // absent means absent, as in JSON
      out[key] = render(val, depth + 1, seen, path + '.' + key);
    }
    return out;
  } finally {
    seen.delete(v);
  }
}

/** Strings longer than this are cut, marked (console entries, say); a result lifts it altogether. */
let stringCap = MAX_STRING;

/** Render a value and enforce the bridge's result cap (too big -> a result_too_large error): no string is cut
 * inside a result, so a value either arrives whole or fails by name. */
function toResult(/** @type {any} */ value, /** @type {number} */ maxResult) {
  const saved = stringCap;
  stringCap = Infinity; // the size named in result_too_large is the real one
  let rendered;
  try { rendered = render(value, 0, new Map(), ''); } finally { stringCap = saved; }
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
