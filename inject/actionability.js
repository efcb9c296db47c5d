// @ts-check
// dbg-bridge page client, part: actionability — whether an element can take an action now (attached, visible,
// stable, enabled, receives events, editable), waited for like Playwright's injected script (checkElementStates,
// expectHitTarget). Shares one IIFE with the other parts (inject/__init__.py).

/** The checks each action waits for (attached is always checked). @type {Record<string, string[]>} */
const ACTION_CHECKS = {
  click: ['visible', 'stable', 'enabled', 'hit'], dblclick: ['visible', 'stable', 'enabled', 'hit'],
  check: ['visible', 'stable', 'enabled', 'hit'], uncheck: ['visible', 'stable', 'enabled', 'hit'],
  hover: ['visible', 'stable', 'hit'], drag: ['visible', 'stable', 'hit'],
  fill: ['visible', 'enabled', 'editable'], type: ['visible', 'enabled'], // type: where the keys go is keysTarget's
  press: ['visible', 'enabled'], select: ['visible', 'enabled'],
  focus: [], scroll: [],
  upload: [], // a file input is often hidden behind a styled button: a person's pick reaches it all the same
};

/** One animation frame, or 50 ms where frames do not come (a hidden tab). A visible page's frame may come late on a
 * busy machine, and the box read before it has not moved (animations advance per frame): wait up to 1 s for it. */
const nextFrame = () => new Promise((r) => {
  const t = setTimeout(r, document.visibilityState === 'visible' ? 1000 : 50);
  requestAnimationFrame(() => { clearTimeout(t); r(null); });
});

/** A short name for an element, the way a CSS selector would say it: div.modal-backdrop, button#save. @param {Element} el */
function shortName(el) {
  let s = el.tagName.toLowerCase();
  if (el.id) return s + '#' + el.id;
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
  if (cls.length) return s + '.' + cls.slice(0, 2).join('.');
  const text = clip((el.textContent || '').replace(/\s+/g, ' ').trim(), 40);
  return text ? s + ' ' + JSON.stringify(text) : s;
}

/** Whether el is disabled: its own disabled state (a disabled fieldset's too) or aria-disabled on it or around it. @param {Element} el */
function isDisabled(el) {
  try { if (el.matches(':disabled')) return true; } catch (_) { /* not a form element */ }
  for (let at = /** @type {Element|null} */ (el); at; at = at.parentElement || hostOf(at)) {
    if (at.getAttribute('aria-disabled') === 'true') return true;
  }
  return false;
}

/** Whether el takes typed text: a text field that is not read-only, a contenteditable, or an EditContext host. @param {Element} el */
function isEditable(el) {
  const e = /** @type {any} */ (el);
  if (e.editContext) return true;
  if (/** @type {HTMLElement} */ (el).isContentEditable) return true;
  if (el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && TEXT_INPUT.test((el.getAttribute('type') || 'text').toLowerCase()))) {
    return !e.readOnly && el.getAttribute('aria-readonly') !== 'true';
  }
  return false;
}

/** Where typing into el goes: el itself, the control a label names, or the one editable element inside el (a code
 * editor's wrapper, say), so an agent can name the editor it sees. @param {Element} el @returns {Element} */
function typingTarget(el) {
  if (isEditable(el)) return el;
  const control = el.tagName === 'LABEL' ? /** @type {HTMLLabelElement} */ (el).control : null;
  if (control) return control;
  const inside = deepElements(el).filter((x) => x !== el && isEditable(x) && !(x.parentElement && /** @type {HTMLElement} */ (x.parentElement).isContentEditable));
  return inside.length === 1 ? inside[0] : el;
}

/** The file input an upload goes to: el itself, the control of a label, or the one file input inside el; else a
 * bad_action naming the file inputs the page has. @param {Element} el */
function fileInput(el) {
  const isFile = (/** @type {Element} */ x) => x.tagName === 'INPUT' && /** @type {HTMLInputElement} */ (x).type === 'file';
  if (isFile(el)) return el;
  const control = el.tagName === 'LABEL' ? /** @type {HTMLLabelElement} */ (el).control : null;
  if (control && isFile(control)) return control;
  const inside = deepElements(el).filter(isFile);
  if (inside.length === 1) return inside[0];
  const all = deepElements(document.documentElement).filter(isFile).slice(0, 10).map((x) => refs.of(x));
  throw new DbgError('bad_action', 'upload goes to a file input (<input type=file>); ' + refs.of(el) + ' is <' + el.tagName.toLowerCase() + '>' +
    (inside.length ? ' with ' + inside.length + ' file inputs inside' : '') + '. ' +
    (all.length ? 'The page has these file inputs: ' + all.join(', ') + '.' : 'The page has no file input (a picker opened by showOpenFilePicker cannot be filled from here).'));
}

/** The point a pointer action aims at: the middle of the part of el's box inside the viewport. @param {DOMRect} r */
function aimPoint(r) {
  const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth), top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
  if (right <= left || bottom <= top) return null;
  return { x: Math.round((left + right) / 2 * 100) / 100, y: Math.round((top + bottom) / 2 * 100) / 100 };
}

/** The element a real pointer at (x, y) hits, as seen on the way to el: from the document down through each shadow
 * root between it and el (the hit in one root must be the host of the next to go on), as Playwright's
 * expectHitTarget does; then into the open shadow roots of whatever else was hit, to name it.
 * @param {Element} el @param {number} x @param {number} y @returns {Element|null} */
function hitAt(el, x, y) {
  /** @type {Array<Document|ShadowRoot>} */
  const roots = [];
  for (let at = /** @type {Element|null} */ (el); at;) {
    const root = /** @type {Document|ShadowRoot} */ (at.getRootNode());
    roots.push(root);
    at = root instanceof ShadowRoot ? root.host : null;
  }
  /** @type {Element|null} */
  let hit = null;
  for (let i = roots.length - 1; i >= 0; i--) {
    const root = roots[i];
    const inner = typeof root.elementFromPoint === 'function' ? root.elementFromPoint(x, y) : null;
    if (!inner) break;
    hit = inner;
    if (i && inner !== /** @type {ShadowRoot} */ (roots[i - 1]).host) break;
  }
  // below the hit: into the shadow tree of a host el is not inside (an unrelated custom element, or the one el is
  // slotted into, whose own shadow content may paint over el)
  while (hit && hit.shadowRoot && !roots.includes(hit.shadowRoot)) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/** Whether inner is outer or below it in the flat tree the browser hit-tests (a slotted node under its slot).
 * @param {Element} outer @param {Element} inner */
function flatContains(outer, inner) {
  for (let at = /** @type {Element|null} */ (inner); at; at = at.assignedSlot || at.parentElement || hostOf(at)) {
    if (at === outer) return true;
  }
  return false;
}

/** Whether a hit at el's point counts as reaching el: el or inside it (slotted content at its slot), a label of it,
 * a shadow host el lives in (the browser retargets a hit on slotted content to the host: elementFromPoint answers
 * the host over a custom element's slotted label), or around it when el lets the pointer through
 * (pointer-events: none). Only an element outside el's composed subtree and not around it covers it.
 * @param {Element} el @param {Element} hit */
function reaches(el, hit) {
  if (hit === el || flatContains(el, hit) || deepContains(el, hit)) return true;
  if (hit.tagName === 'SLOT' && flatContains(hit, el)) return true; // the slot el is rendered in: the hit was el's
  const label = hit.closest('label');
  if (label && /** @type {HTMLLabelElement} */ (label).control === el) return true;
  if (!deepContains(hit, el)) return false;
  return !!hit.shadowRoot || getComputedStyle(el).pointerEvents === 'none';
}

/** CSS properties whose animation moves or resizes what they are on. */
const MOVING_PROPS = /^(transform|translate|rotate|scale|top|left|right|bottom|inset|width|height|margin|padding)/;

/** A running CSS transition or animation that moves el (on el or an element around it), or null: the box can be the
 * same two frames running at the slow end of an ease-out while the app still waits for the transition's end
 * (Bootstrap's modal ignores clicks until then). @param {Element} el */
function movingAnimation(el) {
  if (typeof document.getAnimations !== 'function') return null;
  for (const anim of document.getAnimations()) {
    if (anim.playState !== 'running') continue;
    const effect = /** @type {KeyframeEffect|null} */ (anim.effect);
    const on = effect && effect.target;
    if (!on || !(on === el || deepContains(on, el))) continue;
    const t = /** @type {any} */ (anim).transitionProperty;
    const props = t ? [String(t)] : effect.getKeyframes().flatMap((k) => Object.keys(k));
    const prop = props.map((p) => p.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())).find((p) => MOVING_PROPS.test(p));
    if (prop) return { prop, on, kind: t ? 'transition' : 'animation' };
  }
  return null;
}

/** @param {DOMRect} r */
const boxText = (r) => Math.round(r.x) + ',' + Math.round(r.y) + ' ' + Math.round(r.width) + '×' + Math.round(r.height);

/** Why el cannot take `kind` now (one failed check: {code, message}), or null when it can; `state.box` carries the
 * box between calls (stable = the same box two frames running). @param {Element} el @param {string} kind
 * @param {{box?: DOMRect|null, scrolled?: boolean}} state @returns {{code: string, message: string, permanent?: boolean}|null} */
function checkOnce(el, kind, state) {
  const name = refs.of(el);
  if (!el.isConnected) {
    return { code: 'not_attached', message: name + ' is no longer in the page (removed or re-rendered). Take a new page_snapshot and use its ref.' };
  }
  const checks = ACTION_CHECKS[kind] || [];
  const style = getComputedStyle(el);
  let r = el.getBoundingClientRect();
  if (checks.includes('visible')) {
    const zeroOk = kind === 'type' || kind === 'fill' || kind === 'press'; // an editor's input sink may take no room
    const shown = typeof el.checkVisibility === 'function' ? el.checkVisibility({ visibilityProperty: true }) : style.visibility !== 'hidden';
    if (!shown || (!zeroOk && (r.width === 0 || r.height === 0))) {
      const why = !shown ? (style.visibility === 'hidden' ? 'visibility: hidden' : 'display: none here or around it') : 'its box is ' + boxText(r);
      return { code: 'not_visible', message: name + ' is not visible (' + why + '). Wait for it (page_wait ref=' + name + '), open what reveals it, or pass force: true to act anyway.' };
    }
  }
  if (checks.includes('hit') && !state.scrolled) {
    const p = aimPoint(r);
    if (!p || p.x < r.left || p.x > r.right || p.y < r.top || p.y > r.bottom || r.top < 0 || r.bottom > innerHeight) {
      /** @type {HTMLElement} */ (el).scrollIntoView({ block: 'center', inline: 'center' });
      r = el.getBoundingClientRect();
    }
    state.scrolled = true;
  }
  if (checks.includes('stable')) {
    const prev = state.box;
    state.box = r;
    if (!prev || prev.x !== r.x || prev.y !== r.y || prev.width !== r.width || prev.height !== r.height) {
      return { code: 'not_stable', message: name + ' is still moving or resizing (' + (prev ? 'its box went from ' + boxText(prev) + ' to ' + boxText(r) : 'box ' + boxText(r)) +
        '): an animation or transition is running. Wait and retry, or pass force: true to act on it mid-move.' };
    }
    const moving = movingAnimation(el);
    if (moving) {
      return { code: 'not_stable', message: name + ' is still moving: a CSS ' + moving.kind + ' of ' + moving.prop + ' on ' + shortName(moving.on) +
        ' is running. Wait and retry, or pass force: true to act on it mid-move.' };
    }
  }
  if (checks.includes('enabled') && isDisabled(el)) {
    return { code: 'not_enabled', message: name + ' is disabled (disabled, aria-disabled or inside a disabled fieldset). Wait for it (page_wait ref=' + name + ' state=enabled) or do what enables it first.' };
  }
  if (checks.includes('editable') && !isEditable(el)) {
    const e = /** @type {any} */ (el);
    const readOnly = e.readOnly || el.getAttribute('aria-readonly') === 'true';
    const why = readOnly ? 'it is read-only' : '<' + el.tagName.toLowerCase() + '> is not a text field, contenteditable or EditContext host';
    // a read-only field may become editable; an element that is no field never will: refused at once
    return { code: 'not_editable', permanent: !readOnly, message: name + ' cannot take typed text (' + why + '). ' +
      (readOnly ? 'Wait for it to become editable, or target another field.' : 'Target the field itself (page_find role=textbox), or use type, which sends keys to what a click on it focuses (a grid cell, a canvas app).') };
  }
  if (checks.includes('hit')) {
    const p = aimPoint(r);
    if (!p) return { code: 'not_visible', message: name + ' is outside the viewport and could not be scrolled into it (box ' + boxText(r) + '). Scroll its container first (action scroll) or pass force: true.' };
    const hit = hitAt(el, p.x, p.y);
    if (hit && !reaches(el, hit)) {
      return { code: 'obscured', message: name + ' is covered at ' + Math.round(p.x) + ',' + Math.round(p.y) + ' by ' + shortName(hit) + ' (' + refs.of(hit) + '), which would take a real ' + kind +
        '. Close or wait for what covers it, act on that element instead, or pass force: true to send the events to ' + name + ' anyway.' };
    }
  }
  return null;
}

/** Wait (until deadlineMs) for el to pass the checks its action needs; throws the last failed check as a named error.
 * @param {Element} el @param {string} kind @param {number} deadlineMs @param {AbortSignal} [signal] */
async function waitActionable(el, kind, deadlineMs, signal) {
  const started = Date.now();
  /** @type {{box?: DOMRect|null, scrolled?: boolean}} */
  const state = {};
  for (;;) {
    const fail = checkOnce(el, kind, state);
    if (!fail) return;
    // what waiting cannot change fails at once
    if (fail.code === 'not_attached' || fail.permanent) throw new DbgError(fail.code, fail.message);
    if (Date.now() >= deadlineMs || (signal && signal.aborted)) {
      throw new DbgError(fail.code, fail.message + ' (checked for ' + (Date.now() - started) + ' ms before ' + kind + ')');
    }
    await nextFrame();
  }
}
