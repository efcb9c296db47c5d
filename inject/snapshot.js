// @ts-check
// dbg-bridge page client, part: the snapshot: the page as compact lines with refs. Shares one IIFE with the other parts (inject/__init__.py).

/** @typedef {{depth: number, interactive: boolean, maxChars: number, boxes: boolean, detailed?: boolean}} SnapshotOptions */

/** Roles that only group others: in the lean default their line goes and their children move up (unless named).
 * The page's one header, main part and footer are among them (navigation and complementary, which tell a menu's
 * links from the content's, stay). */
const WRAPPER_ROLES = new Set(['list', 'table', 'group', 'region', 'paragraph', 'cell', 'columnheader', 'form', 'label',
  'banner', 'main', 'contentinfo', 'rowgroup']);
/** Inside a named element, what still gets lines of its own (presentation and none wrappers do not). */
const INNER_ROLES = 'input,select,textarea,button,a[href],[role]:not([role=presentation]):not([role=none])';
/** Characters of running text per line in the lean default (the whole text: detailed, page_find, page_exec). */
const LEAN_TEXT = 72;
/** ... and of what a clickable element without a role says (its ref is what counts). */
const LEAN_NAME = 56;
/** Elements an agent acts on carry a ref in the lean default: controls, labels, and anything clickable. */
const ACTION_SELECTOR = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=tab],' +
  '[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[tabindex],[onclick],[contenteditable]';

/** Cursors a page draws over what a person can press or drag. */
const ACTION_CURSORS = /^(pointer|grab|grabbing|move)$/;

/** Something a click does something to, though it has no control role: tabindex, an onclick attribute, or the
 * element where a pointer or grab cursor starts. @param {Element} el */
function clickable(el) {
  if (el.hasAttribute('onclick') || focusStop(el)) return true;
  const cursor = getComputedStyle(el).cursor;
  if (!ACTION_CURSORS.test(cursor)) return false;
  const up = el.parentElement || hostOf(el);
  return !up || getComputedStyle(up).cursor !== cursor;
}

/** In the Tab order (tabindex >= 0) though not a control: a map, a canvas app, a spreadsheet — a person gives it
 * keys and drags, whatever controls it holds. @param {Element} el */
function focusStop(el) {
  return el.hasAttribute('tabindex') && /** @type {HTMLElement} */ (el).tabIndex >= 0;
}

/** Operated though its role does not say so: a focus stop, or a clickable element with nothing to act on inside
 * (else those controls speak). @param {Element} el @param {string} role */
function operable(el, role) {
  if (INTERACTIVE.has(role) || role === 'label' || role === 'iframe') return false;
  // structure a person reads rather than operates: its cursor is not looked at (a snapshot reads no style for it)
  if (STRUCTURE_ROLES.test(role)) return focusStop(el) && !/^(row|rowgroup|table|grid|dialog|alertdialog|document|application)$/.test(role);
  return focusStop(el) || (clickable(el) && !actionsInside(el).length);
}

/** Roles of structure: operable only as a focus stop. */
const STRUCTURE_ROLES = /^(heading|paragraph|list|table|rowgroup|row|form|banner|main|contentinfo|navigation|complementary|dialog|alertdialog|document|application|grid|group)$/;

/** A cell of a table inside a focus stop (a spreadsheet): a person clicks it to select it and types into it.
 * @param {Element} cell */
function sheetCell(cell) {
  return /^(TD|TH)$/.test(cell.tagName) && !!cell.closest('table') && !!cell.parentElement && !!cell.parentElement.closest('[tabindex]:not([tabindex^="-"])');
}

/** A control that takes no room and shows nothing (a copy button of width 0 until hover, say): no person can click
 * it, Playwright gives it no ref, and the lean default leaves it out. @param {Element} el */
function emptyControl(el) {
  // text shows, and form fields and options are left alone: only a text-less control is measured, so a snapshot
  // after a DOM change forces no layout on a page whose controls all say something
  if (/^(OPTION|AREA|IFRAME|FRAME|INPUT|SELECT|TEXTAREA)$/.test(el.tagName) || elementText(el)) return false;
  const empty = (/** @type {Element} */ e) => { const r = e.getBoundingClientRect(); return r.width === 0 || r.height === 0; };
  if (!empty(el) || getComputedStyle(el).display === 'contents') return false;
  return deepElements(el).every(empty);
}

/** A line's text without its cut (the words shown, to compare with a name). @param {string} text */
function uncut(text) {
  return text.replace(/…(\(\+[\d,]+ chars: page_find ref=e\d+\))?$/, '');
}

/** Something a person types into, whatever its size: a code editor's 0-px textarea or EditContext host is the one
 * element to click to type into it. @param {Element} el */
function editable(el) {
  return /^(TEXTAREA|INPUT|SELECT)$/.test(el.tagName) || /** @type {HTMLElement} */ (el).isContentEditable ||
    !!(/** @type {any} */ (el).editContext) || /^(textbox|searchbox|combobox)$/.test(el.getAttribute('role') || '');
}

/** Inside an editor or code (text whose lines may repeat: two lines of `}`). @param {Element} el */
function inEditor(el) {
  return /** @type {HTMLElement} */ (el).isContentEditable || !!el.closest('[role=textbox],pre,code') || keepsSpaces(el);
}

/** The elements below el (shadow trees included) an agent could act on. @param {Element} el */
function actionsInside(el) {
  return deepElements(el).filter((e) => e !== el && e.matches(ACTION_SELECTOR));
}

/** A row of a data table (no table inside it, a few controls at most, short text) fits on one line. @param {Element} row */
function foldableRow(row) {
  const below = deepElements(row);
  if (below.some((e) => e !== row && (e.tagName === 'TABLE' || e.tagName === 'TR' || /^(row|table|grid|list|navigation|form)$/.test(e.getAttribute('role') || '')))) return false;
  return below.filter((e) => e !== row && e.matches(ACTION_SELECTOR)).length <= 4 && elementText(row).length <= 400;
}

/** A table cell in a one-line row: its content in reading order, each control in it in place as
 * `role "name" [states] [ref=e4]`; a cell that is itself a control (a grid's focusable cell) carries its ref.
 * @param {Element} cell */
function rowCell(cell) {
  const self = cell.matches(ACTION_SELECTOR) || sheetCell(cell);
  const run = flatRun(cell, true);
  const inner = run.parts.some((p) => typeof p !== 'string');
  if (self && !inner) return controlToken(cell, true);
  const text = runLines(run, cell, 60, true).lines.join(' ');
  return self ? (text ? text + ' ' : '') + '[ref=' + refs.of(cell).split('@')[0] + ']' : text;
}

/** States in the lean default: no heading level, no `collapsed` (an `expanded` control says so). @param {Element} el @param {string} role */
function leanStates(el, role) {
  return statesOf(el, role).filter((x) => x !== 'collapsed' && !x.startsWith('level='));
}

/**
 * Walk the DOM (open shadow roots included, slotted nodes at their slot) into compact lines:
 * `- role "name" [state] [ref=e3@ab]`. The lean default puts refs on what an agent acts on only, drops lines that
 * only group, and writes a table row without controls as one line; `detailed` gives every element with a role its
 * line and its ref.
 * @param {Element} root @param {SnapshotOptions} opt
 */
function snapshot(root, opt) {
  labelIndex = indexLabels();
  try { return withTextCache(() => snapshotWalk(root, opt)); } finally { labelIndex = null; }
}

/** @param {Element} root @param {SnapshotOptions} opt */
function snapshotWalk(root, opt) {
  const lines = [];
  let chars = 0, count = 0, truncated = 0;
  const limit = opt.maxChars > 0 ? opt.maxChars : Infinity;
  const lean = !opt.detailed && !opt.interactive;
  const selected = /** @type {any} */ (window).__dbgSelected;
  let lastSaid = ''; // the name and text of the line emitted last
  /** the text line emitted last, while nothing else came after it: a control named by it takes its place
   * @type {{said: string, level: number, kept: boolean}|null} */
  let lastText = null;
  /** @param {string} line */
  const emit = (line) => {
    count++;
    lastText = null;
    // past the cut, keep walking to count exactly what is left out
    if (truncated || chars + line.length + 1 > limit) truncated++;
    else { chars += line.length + 1; lines.push(line); }
  };
  /** Take back the text line before: it only said the name of the control that follows (a label not tied to it). */
  const unsayText = () => {
    count--;
    if (lastText && lastText.kept) chars -= /** @type {string} */ (lines.pop()).length + 1;
    else truncated--;
  };
  /** @param {Element} el @param {number} level @param {string} said the name of the nearest shown ancestor */
  const walk = (el, level, said) => {
    if (SKIP_TAGS.has(el.tagName) || hidden(el)) return;
    const role = roleOf(el);
    // a row's name is its cells' text: in the lean default its cells say it
    let name = role && !(lean && role === 'row' && !el.hasAttribute('aria-label')) ? nameOf(el, role) : '';
    const op = operable(el, role);
    // a focus stop that holds controls (a map with its zoom buttons) is named by its label; its controls follow
    const holder = op && focusStop(el) && actionsInside(el).length > 0;
    if (op && !role) name = nameOf(el, '');
    const max = lean ? LEAN_TEXT : 120;
    // its content in reading order: a single run of inline content is this element's text (inline elements inside
    // their sentence, inline controls in place); runs between block children are text lines of their own
    const segs = opt.interactive ? null : segments(el, lean);
    /** @type {Segment|null} */
    let own = null;
    let text = '';
    if (segs && segs.length === 1 && !('block' in segs[0])) {
      const r = runLines(segs[0], el, max, lean);
      if (r.count === 1 && r.plain && !(r.controls && onlyNamesControls(r))) {
        own = segs[0];
        text = r.lines[0];
        // a name that only repeats the words around the controls: the line says it, refs in place
        if (r.controls && name && r.spoken.startsWith(name.replace(/…$/, ''))) name = '';
        // ", , ," between blocks says nothing; neither do the words of a button its name already says, nor a line
        // that repeats the one before (not in an editor: a code line of `}` twice is two lines)
        if (!r.controls && (saysNothing(r.plain) || (said && said.includes(text)) ||
            (lean && !role && lastSaid.includes(text.replace(/…$/, '').toLowerCase()) && !inEditor(el)))) text = '';
        // a name cut from this same text: the text says it (and how to read the rest)
        if (name.endsWith('…') && text.startsWith(name.slice(0, Math.min(40, name.length - 1)))) name = '';
      }
    }
    const forControl = role === 'label' && !!(/** @type {HTMLLabelElement} */ (el).control); // its control shows the name
    // a clickable element without a role counts when nothing inside it is a control (else the controls speak)
    const actionable = INTERACTIVE.has(role) || role === 'label' || role === 'iframe' || op;
    // a clickable element without a role (a div with tabindex or a click cursor) reads as its whole text
    if (lean && actionable && !role && !holder) text = clip(elementText(el), LEAN_NAME); // its ref is on the line: page_find reads it whole
    if (holder) text = '';
    if (lean && actionable && !editable(el) && emptyControl(el)) return;
    let show = opt.interactive ? INTERACTIVE.has(role) || op : !forControl && (!!role || !!text || op);
    if (lean && show && level <= opt.depth) {
      if (role === 'row' && foldableRow(el)) { // one line: each cell's text, its controls inline with their refs
        const cells = flatElementChildren(el).filter((c) => !hidden(c)).map(rowCell).filter(Boolean);
        if (cells.length) emit('  '.repeat(level) + '- row: ' + cells.join(' | '));
        return;
      }
      if (WRAPPER_ROLES.has(role) && !actionable && !text && (!name || role === 'cell' || role === 'paragraph')) show = false;
      if (!role && !text && !op) show = false;
      if (actionable && !role && (text || name)) show = true;
      if (role === 'listitem' && !text) {
        const inner = actionsInside(el);
        if (inner.length === 1 && withTextCache(() => nameOf(inner[0], roleOf(inner[0]) || 'button')) === name) show = false;
        else if (!name || inner.length) show = false;
      }
    }
    let next = level, says = said;
    if (show && level <= opt.depth) {
      says = name || text;
      let line = '  '.repeat(level) + '- ' + (role || (actionable ? 'clickable' : 'text'));
      if (name) line += ' ' + JSON.stringify(name);
      else if (!role && text && !actionable) line += ': ' + text;
      const st = lean ? leanStates(el, role) : statesOf(el, role);
      if (st.length) line += ' [' + st.join(', ') + ']';
      if (lean || opt.interactive ? actionable : (role && role !== 'paragraph') || op) line += ' [ref=' + (lean ? refs.of(el).split('@')[0] : refs.of(el)) + ']';
      if (role === 'iframe') { const id = router.ids.get(el); if (id) line += ' [frame=' + id + ']'; }
      if (el === selected) line += ' [selected-by-human]';
      if (opt.boxes && (role || actionable)) {
        const r = el.getBoundingClientRect();
        line += ' [box=' + [r.x, r.y, r.width, r.height].map(Math.round).join(',') + ']';
      }
      if ((role || actionable) && text && name !== text && !opt.interactive && !name.includes(uncut(text))) line += ': ' + text;
      if (lean && actionable && name && lastText && lastText.level === level && lastText.said === name.toLowerCase()) unsayText();
      emit(line);
      if (lean && !role && !actionable) lastText = { said: text.toLowerCase(), level, kept: !truncated };
      lastSaid = (name + ' ' + text).toLowerCase();
      if (lean && actionable && !role && !holder) return; // its text is on its line
      next = level + 1;
      if (role && name && /^(button|link|heading|option|tab|menuitem|cell|gridcell|rowheader|columnheader|listitem|treeitem)$/.test(role) && !el.querySelector(INNER_ROLES)) return;
    }
    if (next > opt.depth + 1) return;
    if (!segs) { for (const k of flatElementChildren(el)) walk(k, next, says); return; } // slotted nodes at their slot
    for (const seg of segs) {
      if ('block' in seg) walk(seg.block, next, says);
      else if (seg === own && !forControl) continue; // on this element's line
      else if (forControl || !runText(seg, el, next)) for (const p of seg.parts) if (typeof p !== 'string') walk(p, next, says);
    }
  };
  /** A run between blocks as text lines (its controls in place); false when it is only controls (they get lines of
   * their own). @param {Run} seg @param {Element} owner @param {number} level */
  const runText = (seg, owner, level) => {
    const r = runLines(seg, owner, lean ? LEAN_TEXT : 120, lean);
    if (!r.plain || saysNothing(r.plain) || (r.controls && onlyNamesControls(r))) return !r.controls;
    if (level > opt.depth) return true;
    for (const l of r.lines) {
      emit('  '.repeat(level) + '- text: ' + l);
      if (lean && !r.controls) lastText = { said: l.toLowerCase(), level, kept: !truncated };
      lastSaid = l.toLowerCase();
    }
    return true;
  };
  walk(root, 0, '');
  if (truncated) {
    // the closing line counts against maxChars too: drop shown lines until it fits
    const tail = () => '- … ' + truncated + ' more element(s) over maxChars=' + opt.maxChars + '; narrow with root, depth or interactiveOnly, or toFile';
    while (lines.length && chars + tail().length > limit) { chars -= /** @type {string} */ (lines.pop()).length + 1; truncated++; }
    lines.push(tail());
  }
  return { text: lines.join('\n'), elements: count, shown: count - truncated, truncated: truncated > 0 };
}
