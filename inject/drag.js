// @ts-check
// dbg-bridge page client, part: drag — synthesized in the page as a person's drag reaches it: HTML5 drag and drop
// (a real DataTransfer through dragstart/dragenter/dragover/drop/dragend, at the pointer's positions) when the pressed
// element is draggable, else a pointer drag (down, moves between the ends with the button held, up) for libraries
// that watch pointer or mouse moves and start past a threshold. Shares one IIFE with the other parts
// (inject/__init__.py).

/** Moves between a drag's ends, a frame apart each: enough for thresholds and for libraries that compare the pointer
 * with the middle of the element under it. */
const DRAG_STEPS = 10;

/** A pause the page's own timers and frames get between two moves. */
const dragTick = () => new Promise((r) => setTimeout(() => requestAnimationFrame(() => r(null)), 16)).then(() => null);

/** Where a drag ends: the middle of `to` (a ref or selector), or dx/dy px from where it starts; the element dropped
 * on (null for an offset). @param {Element} el @param {Record<string, any>} a @param {{x: number, y: number}} from */
function dragEnd(el, a, from) {
  if (a.to) {
    const dest = REF_PATTERN.test(String(a.to)) ? refs.resolve(String(a.to)) : target({ selector: a.to });
    const r = dest.getBoundingClientRect();
    const p = aimPoint(r) || { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    return { x: p.x, y: p.y, dest };
  }
  const dx = Number(a.dx || 0), dy = Number(a.dy || 0);
  if (!dx && !dy) throw new DbgError('bad_action', 'drag needs `to` (the ref or CSS selector to drop on) or `dx`/`dy` (px to move by, e.g. to pan a map or move a slider).');
  return { x: from.x + dx, y: from.y + dy, dest: null };
}

/** The element a pointer at (x, y) is over, inside open shadow roots; `or` when the point is off the page. @param {number} x
 * @param {number} y @param {Element} or */
function overAt(x, y, or) {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit || or;
}

/** The element an HTML5 drag starts from when el is pressed: el or its nearest ancestor with draggable="true".
 * @param {Element} el @returns {Element|null} */
function dragSource(el) {
  for (let at = /** @type {Element|null} */ (el); at; at = at.parentElement || hostOf(at)) {
    if (at.getAttribute('draggable') === 'true') return at;
  }
  return null;
}

/** Identities for elements, to compare a list's order before and after. @type {WeakMap<Element, number>} */
const dragIds = new WeakMap();
let dragSeq = 0;
/** @param {Element} e */
const dragId = (e) => { let id = dragIds.get(e); if (!id) { id = ++dragSeq; dragIds.set(e, id); } return id; };

/** What the page shows of a drag's ends, to compare before and after: where the source is (its box, its place), the
 * order and text of the elements around source and target (a list), and the moved parts inside the source (a map's
 * panes, a slider's thumb: inline transform and position), its value. Classes and other attributes a library sets
 * while dragging (and may leave behind) do not count. @param {Element} el @param {Element|null} dest */
function dragPrint(el, dest) {
  const r = el.getBoundingClientRect();
  const out = [String(el.isConnected), Math.round(r.x), Math.round(r.y), el.getAttribute('aria-valuenow') || '', String(/** @type {any} */ (el).value || '')];
  for (const around of new Set([el.parentElement, dest && dest.parentElement, dest])) {
    if (around) out.push(Array.from(around.children).map(dragId).join(','), (around.textContent || '').slice(0, 20000));
  }
  for (const e of deepElements(el).slice(0, 400)) {
    const s = /** @type {HTMLElement} */ (e).style;
    if (s && (s.transform || s.left || s.top)) out.push(s.transform + ';' + s.left + ';' + s.top);
  }
  return out.join('|');
}

/** Where el is among its siblings (1-based), or 0. @param {Element} el */
const placeOf = (el) => el.parentElement ? Array.prototype.indexOf.call(el.parentElement.children, el) + 1 : 0;

/** The answer's word on a drag that moved el within its list: its place now. @param {Element} el @param {number} before */
function movedTo(el, before) {
  const now = placeOf(el);
  return now && before && now !== before ? { place: now + ' of ' + /** @type {Element} */ (el.parentElement).children.length + ' (was ' + before + ')' } : {};
}

/** Drag el to `to` or by dx/dy, as synthetic events. @param {Element} el @param {Record<string, any>} a */
async function dragTo(el, a) {
  const was = placeOf(el);
  const r = el.getBoundingClientRect();
  const from = aimPoint(r) || { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  const end = dragEnd(el, a, from);
  /** @param {number} x @param {number} y @param {number} buttons */
  const at = (x, y, buttons) => ({ clientX: x, clientY: y, screenX: x, screenY: y, buttons, pointerId: 1, pointerType: 'mouse', isPrimary: true });
  const start = pointerTarget(el);
  mouse(start, 'pointerdown', Object.assign(at(from.x, from.y, 1), { detail: 1 }));
  mouse(start, 'mousedown', Object.assign(at(from.x, from.y, 1), { detail: 1 }));
  await dragTick(); // a library sets draggable (or arms its threshold) on the press
  const points = [];
  for (let i = 1; i <= DRAG_STEPS; i++) {
    points.push({ x: from.x + (end.x - from.x) * i / DRAG_STEPS, y: from.y + (end.y - from.y) * i / DRAG_STEPS });
  }
  points.push({ x: end.x, y: end.y }); // a last move at the drop point, where libraries decide the swap
  const src = dragSource(start);
  if (src) {
    // a real pointer moves a little, the browser starts the drag, and from then on sends drag events, not moves
    const nudge = { x: from.x + Math.sign(end.x - from.x) * 2, y: from.y + Math.sign(end.y - from.y) * 2 };
    mouse(start, 'pointermove', at(nudge.x, nudge.y, 1));
    mouse(start, 'mousemove', at(nudge.x, nudge.y, 1));
    const dt = new DataTransfer();
    /** @param {Element} on @param {string} type @param {{x: number, y: number}} p */
    const drag = (on, type, p) => on.dispatchEvent(new DragEvent(type, Object.assign({ bubbles: true, cancelable: true, composed: true,
      view: window, dataTransfer: dt }, at(p.x, p.y, type === 'dragend' || type === 'drop' ? 0 : 1))));
    if (drag(src, 'dragstart', nudge)) {
      await dragTick();
      /** @type {Element|null} */
      let over = null;
      let dropped = false;
      for (const p of points) {
        const now = overAt(p.x, p.y, end.dest || src);
        if (now !== over) {
          if (over) drag(over, 'dragleave', p);
          drag(now, 'dragenter', p);
          over = now;
        }
        dropped = !drag(now, 'dragover', p); // a drop target cancels dragover
        await dragTick();
      }
      if (over && dropped) drag(over, 'drop', end);
      drag(src, 'dragend', end);
      await dragTick();
      return Object.assign({ drag: 'html5', dropped: dropped }, movedTo(el, was));
    }
  }
  for (const p of points) {
    const now = overAt(p.x, p.y, start);
    mouse(now, 'pointermove', at(p.x, p.y, 1));
    mouse(now, 'mousemove', at(p.x, p.y, 1));
    await dragTick();
  }
  const last = overAt(end.x, end.y, start);
  mouse(last, 'pointerup', Object.assign(at(end.x, end.y, 0), { detail: 1 }));
  mouse(last, 'mouseup', Object.assign(at(end.x, end.y, 0), { detail: 1 }));
  await dragTick();
  return Object.assign({ drag: 'pointer' }, movedTo(el, was));
}

/** Where a drag handed to the bridge's desktop ends, in the top page's viewport (a frame's point mapped out).
 * @param {Element} el @param {Record<string, any>} a @param {{x: number, y: number}} from */
function dragEndOnScreen(el, a, from) {
  const end = dragEnd(el, a, from);
  return window === window.top ? { x: end.x, y: end.y } : toHostBox({ x: end.x, y: end.y, width: 0.01, height: 0.01 });
}
