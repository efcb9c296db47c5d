// @ts-check
// dbg-bridge page client, part: trusted input through the Chrome extension (chrome.debugger on this tab). Shares one IIFE with the other parts (inject/__init__.py).

// The service worker attaches chrome.debugger to the tab on demand and sends Input.dispatchMouseEvent /
// Input.dispatchKeyEvent / Input.insertText, so the page gets real (isTrusted=true) events; it detaches when idle.

const TRUSTED_ACTIONS = ['click', 'dblclick', 'hover', 'check', 'uncheck', 'type', 'fill', 'press', 'drag'];

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
  let hit = null;
  for (const r of rects) {
    if (r.width === 0 || r.height === 0) continue;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    hit = hitAt(el, x, y);
    if (hit && reaches(el, hit)) return { x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100 };
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
    case 'drag': {
      if (dragSource(pointerTarget(el))) throw new DbgError('not_available', extensionDragRefusal(el));
      const p = hitPoint(el);
      const end = dragEnd(el, a, p);
      steps.push({ kind: 'drag', x: p.x, y: p.y, x2: Math.round(end.x * 100) / 100, y2: Math.round(end.y * 100) / 100 });
      break;
    }
  }
  await ext.request('input', { steps }, 20000);
  return refs.of(el);
}

/** Why the extension does not send an HTML5 drag (a draggable source): Chromium hands a drag from DevTools input
 * to the system's drag and drop, which a debugger-driven tab does not finish. @param {Element} el */
function extensionDragRefusal(el) {
  return refs.of(el) + ' starts an HTML5 drag (draggable): real input for it goes through the bridge\'s desktop only ' +
    '(open the page there with desktop_open_url); the extension sends pointer drags. Or drop trusted to synthesize it.';
}

/** @param {string} before @param {string} after */
function diffLines(before, after) {
  const a = new Set(before.split('\n')), b = new Set(after.split('\n'));
  const bare = (/** @type {string} */ l) => l.trim().replace(/^- /, ''); // the tree's own '- ' would read '- - button'
  const removed = before.split('\n').filter((l) => !b.has(l)).map((l) => '- ' + bare(l));
  const added = after.split('\n').filter((l) => !a.has(l)).map((l) => '+ ' + bare(l));
  const all = removed.concat(added);
  return all.length > 30 ? all.slice(0, 30).concat(['… ' + (all.length - 30) + ' more changed line(s)']) : all;
}
