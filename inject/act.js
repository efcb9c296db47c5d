// @ts-check
// dbg-bridge page client, part: actions on one element (click, fill, type, press, drag…), synthesized in the page. Shares one IIFE with the other parts (inject/__init__.py).

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

/**
 * Where a real pointer at el's middle lands, when that is el, inside el, or an element around it that el lets
 * clicks through to (pointer-events: none): apps read event.target. Covered or off-screen: el itself (a
 * synthesized event still reaches it; a real click would not).
 * @param {Element} el @returns {Element}
 */
function pointerTarget(el) {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (!r.width || !r.height || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return el;
  const hit = hitAt(el, x, y);
  if (!hit || hit === el) return el;
  if (deepContains(el, hit) || flatContains(el, hit)) return hit;
  if (deepContains(hit, el) && getComputedStyle(el).pointerEvents === 'none') return hit;
  return el;
}

const FOCUSABLE = 'a[href],button,input,select,textarea,summary,[tabindex],[contenteditable=""],[contenteditable="true"]';
/** The element a mousedown on el focuses: el or its nearest focusable ancestor, across shadow roots. @param {Element} el @returns {HTMLElement|null} */
function closestFocusable(el) {
  for (let at = /** @type {Element|null} */ (el); at; at = hostOf(at)) {
    const f = at.closest(FOCUSABLE);
    if (f) return /** @type {HTMLElement} */ (f);
  }
  return null;
}

/** A control a person would not type into: pressing keys on it is fine, typing text into it is a mistake. */
const NOT_TYPED_INTO = /^(A|BUTTON|SELECT|SUMMARY|INPUT)$/;

/** Where the keys of a type or press on el go, as a person sends them: to el when it takes them (a text field, an
 * element that has or takes the focus); otherwise el is selected the way a click selects it (a grid cell, a canvas
 * app: pointer events, the focus to its nearest focusable ancestor) and the keys go to whatever then has the focus,
 * often the app's hidden input. A type where that click focused nothing and changed nothing is [not_editable], at
 * once: nothing there takes keys. @param {Element} el @param {string} kind
 * @returns {Promise<{to: Element, clicked: boolean}>} */
async function keysTarget(el, kind) {
  if (isEditable(el)) return { to: el, clicked: false };
  const someone = (/** @type {Element|null} */ a) => !!a && a !== document.body && a !== document.documentElement;
  const active = deepActiveElement();
  if (someone(active) && (active === el || deepContains(el, /** @type {Element} */ (active)))) return { to: /** @type {Element} */ (active), clicked: false };
  if (kind === 'press' && someone(active) && deepContains(/** @type {Element} */ (active), el)) return { to: el, clicked: false };
  const h = /** @type {HTMLElement} */ (el);
  const typing = kind === 'type';
  if (typing && (NOT_TYPED_INTO.test(el.tagName) || ['checkbox', 'radio', 'button', 'link', 'option', 'tab', 'menuitem', 'switch'].includes(roleOf(el)))) {
    throw new DbgError('not_editable', refs.of(el) + ' is a ' + (roleOf(el) || el.tagName.toLowerCase()) + ', which takes clicks and keys but no typed text. ' +
      'Type into a text field (page_find role=textbox), or use press for a key.');
  }
  if (h.tabIndex >= 0 || el.matches(FOCUSABLE)) {
    h.focus();
    const now = deepActiveElement();
    if (now && (now === el || deepContains(el, now))) return { to: now, clicked: false };
  }
  // a click to select el must not press a control inside it (a container's middle may be a button): then, or on the
  // page itself, keys go where the focus is without a click
  const at = pointerTarget(el);
  let control = false;
  for (let up = /** @type {Element|null} */ (at); up && up !== el; up = up.parentElement || hostOf(up)) if (up.matches(ACTION_SELECTOR)) control = true;
  if (control || el === document.body || el === document.documentElement) {
    if (typing && !someone(active)) {
      throw new DbgError('not_editable', refs.of(el) + ' takes no typed text: <' + el.tagName.toLowerCase() + '> is not a text field and nothing has the focus. Target the field itself (page_find role=textbox).');
    }
    return { to: someone(active) ? /** @type {Element} */ (active) : el, clicked: false };
  }
  const watch = watchEffect(el);
  await act(el, { action: 'click' });
  await settleBounded();
  const changed = hadEffect(watch.stop(), 'click');
  const now = deepActiveElement();
  if (someone(now) && now !== active) return { to: /** @type {Element} */ (now), clicked: true };
  if (changed || !typing) return { to: someone(now) ? /** @type {Element} */ (now) : el, clicked: true };
  throw new DbgError('not_editable', refs.of(el) + ' takes no typed text: <' + el.tagName.toLowerCase() + '> is not a text field, and a click on it ' +
    'focused nothing and changed nothing, so no element there takes keys. Target the field itself (page_find role=textbox), or first do what opens an editor (dblclick a cell).');
}

/** Set a value through the element's native setter (frameworks that wrap `value` then see a change). @param {Element} el @param {string} value */
function setNativeValue(el, value) {
  const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  const desc = Object.getOwnPropertyDescriptor(proto, 'value');
  if (desc && desc.set) desc.set.call(el, value); else /** @type {any} */ (el).value = value;
}

/** Set a form value the way frameworks notice (the native setter, then input + change). @param {Element} el @param {string} value */
function setValue(el, value) {
  setNativeValue(el, value);
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Fill a field or editor with text, replacing what it holds, the way the edit events say: a form control through its
 * native setter (input, change), a contenteditable through the editing commands (beforeinput, input), an EditContext
 * through its text-update event. @param {Element} el @param {string} value */
function fillText(el, value) {
  const e = /** @type {any} */ (el);
  const h = /** @type {HTMLElement} */ (el);
  h.focus();
  if (e.editContext) {
    editContextEdit(e.editContext, 'insertText', value, 0, e.editContext.text.length);
    return;
  }
  if (h.isContentEditable && el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA') {
    const sel = getSelection();
    if (sel) sel.selectAllChildren(el);
    if (value) editField(el, 'insertText', value); else editField(el, 'deleteContentBackward', null);
    return;
  }
  setValue(el, value);
}

/** The element a wheel over el would scroll in this direction: its nearest ancestor (or itself) that scrolls and
 * still can, else the page. @param {Element} el @param {number} dx @param {number} dy @returns {Element} */
function scrollerFor(el, dx, dy) {
  for (let at = /** @type {Element|null} */ (el); at && at !== document.body && at !== document.documentElement; at = at.parentElement || hostOf(at)) {
    const s = getComputedStyle(at);
    const canY = dy !== 0 && /(auto|scroll|overlay)/.test(s.overflowY) && at.scrollHeight > at.clientHeight &&
      (dy > 0 ? at.scrollTop + at.clientHeight < at.scrollHeight - 1 : at.scrollTop > 0);
    const canX = dx !== 0 && /(auto|scroll|overlay)/.test(s.overflowX) && at.scrollWidth > at.clientWidth &&
      (dx > 0 ? at.scrollLeft + at.clientWidth < at.scrollWidth - 1 : at.scrollLeft > 0);
    if (canY || canX) return at;
  }
  return document.scrollingElement || document.documentElement;
}

/** Scroll as a wheel over el would: a wheel event at el (an app that handles it itself keeps it), else its scroller
 * moves; answers which element moved and by how much. @param {Element} el @param {number} dx @param {number} dy */
function wheelScroll(el, dx, dy) {
  if (!dx && !dy) {
    const s = scrollPositions(el);
    /** @type {HTMLElement} */ (el).scrollIntoView({ block: 'center', inline: 'nearest' });
    return { element: 'into view', dx: 0, dy: 0, moved: scrollPositions(el) !== s };
  }
  const scroller = scrollerFor(el, dx, dy);
  const page = scroller === document.scrollingElement || scroller === document.documentElement;
  const x0 = page ? scrollX : scroller.scrollLeft, y0 = page ? scrollY : scroller.scrollTop;
  const r = el.getBoundingClientRect();
  const wheel = new WheelEvent('wheel', { bubbles: true, cancelable: true, composed: true, view: window, deltaX: dx, deltaY: dy,
    deltaMode: 0, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 });
  if (el.dispatchEvent(wheel)) {
    if (page) window.scrollBy({ left: dx, top: dy, behavior: 'instant' });
    else scroller.scrollBy({ left: dx, top: dy, behavior: 'instant' });
  }
  const x1 = page ? scrollX : scroller.scrollLeft, y1 = page ? scrollY : scroller.scrollTop;
  return { element: page ? 'page' : shortName(scroller), ref: page ? undefined : refs.of(scroller),
    dx: Math.round(x1 - x0), dy: Math.round(y1 - y0), moved: x1 !== x0 || y1 !== y0 };
}

/** Run one action on one element as synthetic events, after its actionability checks (unless force).
 * @param {Element} el @param {Record<string, any>} a @returns {Promise<Record<string, any>>} extra facts for the answer */
async function act(el, a) {
  const h = /** @type {HTMLElement} */ (el);
  const kind = String(a.action);
  switch (kind) {
    case 'click': case 'dblclick': {
      // a person's double-click: press, release, click with detail 1, again with detail 2, then dblclick (grids
      // that count presses open their editor on the second)
      const at = pointerTarget(el);
      for (let n = 1; n <= (kind === 'dblclick' ? 2 : 1); n++) {
        mouse(at, 'pointerdown', { detail: n, buttons: 1 });
        mouse(at, 'mousedown', { detail: n, buttons: 1 });
        if (n === 1) {
          const focusable = closestFocusable(at) || h;
          if (typeof focusable.focus === 'function') focusable.focus();
        }
        mouse(at, 'pointerup', { detail: n });
        mouse(at, 'mouseup', { detail: n });
        mouse(at, 'click', { detail: n }); // el.click() would say detail 0; a person's click counts (activation runs all the same)
      }
      if (kind === 'dblclick') mouse(at, 'dblclick', { detail: 2 });
      break;
    }
    case 'hover': { const at = pointerTarget(el); for (const t of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) mouse(at, t); break; }
    case 'focus': h.focus(); break;
    case 'fill': fillText(el, String(a.value == null ? '' : a.value)); break;
    case 'type': {
      // typing goes to the caret: where it is in a focused field, at the end of one we focus first (an editor with
      // its own selection, EditContext, keeps its caret: press Control+End first to type at the end). A document's
      // body is its activeElement whenever nothing has focus: an editable body (TinyMCE's iframe) is focused only
      // when its document has the focus
      if (deepActiveElement() !== el || (el === document.body && !document.hasFocus())) {
        h.focus();
        const f = /** @type {HTMLInputElement} */ (el);
        if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
          try { const end = String(f.value || '').length; f.setSelectionRange(end, end); } catch (_) { /* not a text field */ }
        } else if (h.isContentEditable && !(/** @type {any} */ (el)).editContext) {
          const sel = getSelection();
          if (sel) { sel.selectAllChildren(el); sel.collapseToEnd(); }
        }
      }
      typeText(el, String(a.value || ''));
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
    case 'press': {
      if (typeof h.focus === 'function' && deepActiveElement() !== el) h.focus();
      pressChord(el, String(a.key || a.value || 'Enter'));
      break;
    }
    case 'upload': {
      // what a pick in the file chooser does: the input's files replaced, then input and change
      const input = /** @type {HTMLInputElement} */ (el);
      const files = Array.isArray(a.uploads) ? a.uploads : [];
      if (!files.length) throw new DbgError('bad_action', 'upload needs `files` (the bridge reads them from its --upload-dir).');
      if (files.length > 1 && !input.multiple) throw new DbgError('bad_action', refs.of(el) + ' takes one file (no multiple attribute); ' + files.length + ' were given.');
      const dt = new DataTransfer();
      for (const f of files) {
        const bytes = Uint8Array.from(atob(String(f.data)), (c) => c.charCodeAt(0));
        dt.items.add(new File([bytes], String(f.name), { type: String(f.type || '') }));
      }
      input.files = dt.files;
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
      return { files: Array.from(input.files).map((f) => f.name + ' (' + f.size + ' bytes)') };
    }
    case 'drag': return dragTo(el, a);
    case 'scroll': {
      const dy = Number(a.dy || a.value || 0), dx = Number(a.dx || 0);
      return { scrolled: wheelScroll(el, dx, dy) };
    }
    default:
      throw new DbgError('bad_action', "Unknown action '" + kind + "'. Actions: click, dblclick, hover, focus, fill, type, select, check, uncheck, press, scroll, drag.");
  }
  return {};
}
