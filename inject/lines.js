// @ts-check
// dbg-bridge page client, part: text lines: an element's content as a person reads it, inline elements inside their
// sentence and inline controls in place with their refs. Shares one IIFE with the other parts (inject/__init__.py).

/** Elements that sit inside the sentence around them when laid out inline (a span styled display: block does not). */
const INLINE_TAGS = new Set(['A', 'ABBR', 'B', 'BDI', 'BDO', 'BIG', 'CITE', 'CODE', 'DATA', 'DEL', 'DFN', 'EM', 'FONT',
  'I', 'IMG', 'INS', 'KBD', 'MARK', 'NOBR', 'Q', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRONG', 'SUB', 'SUP', 'TIME', 'TT', 'U',
  'VAR', 'WBR', 'BR', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA']);
/** Inside an inline control, anything of these makes it a block of its own (a link around a whole card). */
const BLOCK_INSIDE = 'div,p,h1,h2,h3,h4,h5,h6,ul,ol,li,table,section,article,header,footer,nav,form,input,select,textarea,button,a[href],[role]';
/** A run with nothing but these says nothing (", , ," or "|" between block items). */
const SEPARATORS_ONLY = /^[\s,;|·•/\-–—]*$/;
/** Marks a control's place inside a run's text while it is normalised and cut. */
const TOKEN = /\u0001(\d+)\u0002/g;

/** @typedef {{parts: Array<string|Element>}} Run a stretch of inline content: text, and the controls inside it */
/** @typedef {Run|{block: Element}} Segment */

/** Laid out inline: an inline tag whose box is inline (or inline-block). @param {Element} el */
function inlineBox(el) {
  if (!INLINE_TAGS.has(el.tagName)) return false;
  const d = getComputedStyle(el).display;
  return d === 'inline' || d === 'inline-block';
}

/** What an inline element is inside a sentence: 'control' (kept in place with its ref), 'text' (its content joins
 * the sentence), or 'block' (walked as its own line). @param {Element} el @param {boolean} lean */
function inlineKind(el, lean) {
  const role = roleOf(el);
  const control = INTERACTIVE.has(role) || role === 'img' || (lean && !role && clickable(el) && !actionsInside(el).length);
  // a control's box is looked at only when words sit beside it (settled in segments): among controls alone (a
  // toolbar) each gets its own line either way
  if (control) return el.firstElementChild && el.querySelector(BLOCK_INSIDE) ? 'block' : 'control';
  if (!inlineBox(el)) return 'block';
  // text-level roles read as text; a span with a role of its own (status, gridcell, …) is a line of its own
  return !role || /^(generic|strong|emphasis|code|mark|subscript|superscript|deletion|insertion|time|term)$/.test(role) ? 'text' : 'block';
}

/** A run with words in it keeps only the controls laid out inline; one laid out as a block (display: block, a flex
 * item) breaks the line there. @param {Segment[]} segs @returns {Segment[]} */
function settleControls(segs) {
  const out = [];
  for (const s of segs) {
    if ('block' in s || !s.parts.some((p) => typeof p === 'string' && p.trim()) || s.parts.every((p) => typeof p === 'string' || inlineBox(p))) {
      out.push(s);
      continue;
    }
    /** @type {Run} */
    let run = { parts: [] };
    for (const p of s.parts) {
      if (typeof p === 'string' || inlineBox(p)) { run.parts.push(p); continue; }
      if (run.parts.length) out.push(run);
      out.push({ block: p });
      run = { parts: [] };
    }
    if (run.parts.length) out.push(run);
  }
  return out;
}

/** el's content in reading order: runs of inline content (text and inline controls), and the block children
 * between them. @param {Element} el @param {boolean} lean @returns {Segment[]} */
function segments(el, lean) {
  /** @type {Segment[]} */
  const out = [];
  /** @type {Run|null} */
  let run = null;
  const add = (/** @type {string|Element} */ p) => { if (!run) { run = { parts: [] }; out.push(run); } run.parts.push(p); };
  const visit = (/** @type {Element} */ parent) => {
    const kids = flatChildren(parent);
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i];
      if (k.nodeType === 3) { if (k.nodeValue) add(k.nodeValue); continue; }
      if (k.nodeType !== 1) continue;
      const e = /** @type {Element} */ (k);
      if (SKIP_TAGS.has(e.tagName)) continue;
      // a block is checked when it is walked; an inline element here, since its words join this run
      if (!INLINE_TAGS.has(e.tagName)) { out.push({ block: e }); run = null; continue; }
      if (hidden(e)) continue;
      if (e.tagName === 'BR') { add('\n'); continue; }
      const kind = inlineKind(e, lean);
      if (kind === 'text') visit(e);
      else if (kind === 'control') add(e);
      else { out.push({ block: e }); run = null; }
    }
  };
  visit(el);
  return inRowOrder(settleControls(out));
}

/** Rows in the order they are shown: a virtualised grid reuses its row elements, so the DOM order is not the
 * reading order after a sort, and aria-rowindex says where each row sits. @param {Segment[]} segs */
function inRowOrder(segs) {
  if (segs.length < 2 || !('block' in segs[0]) || !segs[0].block.hasAttribute('aria-rowindex')) return segs;
  const at = (/** @type {Segment} */ s) => ('block' in s ? Number(s.block.getAttribute('aria-rowindex')) : NaN);
  if (segs.some((s) => !(at(s) >= 0))) return segs;
  return segs.map((s, i) => ({ s, i })).sort((a, b) => at(a.s) - at(b.s) || a.i - b.i).map((x) => x.s);
}

/** The line an inline element is read in: its nearest ancestor that is not laid out inline. @param {Element} el */
function lineOf(el) {
  let up = el.parentElement || hostOf(el);
  while (up && inlineBox(up)) up = up.parentElement || hostOf(up);
  return up;
}

/** Whitespace is shown as it is rendered here (pre, pre-wrap, break-spaces: code, say). @param {Element} el */
function keepsSpaces(el) {
  const ws = getComputedStyle(el).whiteSpace;
  return ws.startsWith('pre') || ws === 'break-spaces';
}

/** A control inside a line or a row: `role "name" [states] [ref=e4]` (a cell: its text and ref).
 * @param {Element} c @param {boolean} lean */
function controlToken(c, lean) {
  const role = roleOf(c), name = role ? nameOf(c, role) : clip(elementText(c), 40);
  const st = lean ? leanStates(c, role) : statesOf(c, role);
  const ref = ' [ref=' + (lean ? refs.of(c).split('@')[0] : refs.of(c)) + ']';
  if (/^(gridcell|cell|rowheader|columnheader)$/.test(role)) { // a cell reads as its text
    const label = c.hasAttribute('aria-label') || c.hasAttribute('aria-labelledby') ? name : cutText(elementText(c), 60, c);
    return (label || '""') + (st.length ? ' [' + st.join(', ') + ']' : '') + ref;
  }
  return (role || 'clickable') + (name ? ' ' + JSON.stringify(name) : '') + (st.length ? ' [' + st.join(', ') + ']' : '') + ref;
}

/** How to read the whole of what a line cut: its element's ref for page_find. @param {Element} el @param {number} left */
function cutNote(el, left) {
  return '(+' + left.toLocaleString('en-US') + ' chars: page_find ref=' + refs.of(el).split('@')[0] + ')';
}

/** Text cut to n characters, saying how to read the rest. @param {string} s @param {number} n @param {Element} el */
function cutText(s, n, el) {
  const t = normText(s);
  return t.length > n ? t.slice(0, n - 1) + '…' + cutNote(el, t.length - n + 1) : t;
}

/**
 * A run as one or more lines of text: whitespace collapsed (kept where the element renders it: code), controls in
 * place as tokens, plain text cut at max characters (a control is never cut; the cut says how to read the rest).
 * @param {Run} run @param {Element} owner @param {number} max @param {boolean} lean
 * @returns {{lines: string[], count: number, plain: string, spoken: string, controls: number, els: Element[]}}
 */
function runLines(run, owner, max, lean) {
  if (run.parts.every((p) => typeof p !== 'string' || !p.trim())) { // controls only (a toolbar): no words to lay out
    const els = /** @type {Element[]} */ (run.parts.filter((p) => typeof p !== 'string'));
    return { get lines() { return els.length ? [els.map((c) => controlToken(c, lean)).join(' ')] : []; },
      count: els.length ? 1 : 0, plain: '', spoken: '', controls: els.length, els };
  }
  if (run.parts.length === 1 && !/[\n\t\u00AD\u200B-\u200D\u2060\uFEFF]|\S {2}|^ +\S/.test(/** @type {string} */ (run.parts[0]))) {
    // the common case, one plain string that renders as it reads: no tokens, no spaces to keep
    const plain = normText(/** @type {string} */ (run.parts[0]));
    const whole = { plain, spoken: plain, controls: 0, els: [], count: plain ? 1 : 0 };
    return { get lines() { return plain ? [plain.length > max ? cutText(plain, max, owner) : plain] : []; }, ...whole };
  }
  /** @type {Element[]} */
  const controls = [];
  let raw = '';
  for (const p of run.parts) {
    if (typeof p === 'string') raw += p;
    else { raw += '\u0001' + controls.length + '\u0002'; controls.push(p); }
  }
  raw = raw.replace(INVISIBLE_CHARS, '');
  const pre = /\n|\S {2,}|^ +\S|\t/.test(raw) && keepsSpaces(owner);
  const rows = pre ? raw.replace(/\t/g, '    ').split('\n').map((l) => l.replace(/\s+$/, '')) : [raw.replace(/\s+/g, ' ').trim()];
  const plain = normText(raw.replace(TOKEN, ' '));
  const spoken = controls.length ? normText(raw.replace(TOKEN, (_, i) => ' ' + rawText(controls[Number(i)]) + ' ')) : plain;
  /** @type {string[]|null} */
  let lines = null;
  // the lines (cut, controls written out) only when they are shown: most runs are decided on plain alone
  const make = () => {
    const out = [];
    for (const row of rows) {
      if (!row.trim()) continue;
      let text = row;
      if (row.replace(TOKEN, '').length > max) { // cut the words, keep every control
        let budget = max - 1, cut = '';
        for (const piece of row.split(/(\u0001\d+\u0002)/)) {
          if (/^\u0001\d+\u0002$/.test(piece)) { cut += piece; continue; }
          if (budget > 0) cut += piece.slice(0, budget);
          budget -= piece.length;
        }
        cut = cut.replace(/\s+$/, '');
        text = cut + '…' + cutNote(owner, row.replace(TOKEN, '').length - cut.replace(TOKEN, '').length);
      }
      // a control reads as its own word: a space on each side where the text has none
      out.push(controls.length ? text.replace(TOKEN, (m, i, at, whole) => (at > 0 && !/\s/.test(whole[at - 1]) ? ' ' : '') +
        controlToken(controls[Number(i)], lean) + (at + m.length < whole.length && !/\s/.test(whole[at + m.length]) ? ' ' : '')) : text);
    }
    return out;
  };
  const count = rows.filter((r) => r.trim()).length;
  return { get lines() { return lines || (lines = make()); }, count, plain, spoken, controls: controls.length, els: controls };
}

/** All of el's content as one run (blocks become spaces; a control among them is kept in place): a table cell's
 * line. @param {Element} el @param {boolean} lean @returns {Run} */
function flatRun(el, lean) {
  /** @type {Run} */
  const run = { parts: [] };
  const visit = (/** @type {Element} */ e) => {
    for (const s of segments(e, lean)) {
      if (!('block' in s)) { run.parts.push(...s.parts); continue; }
      if (hidden(s.block)) continue;
      run.parts.push(' ');
      if (s.block.matches(ACTION_SELECTOR) && !actionsInside(s.block).length) run.parts.push(s.block);
      else visit(s.block);
      run.parts.push(' ');
    }
  };
  visit(el);
  return run;
}

/** A run whose words only name its controls (a label's text before its select): the controls say it, each on
 * its own line. @param {{plain: string, els: Element[]}} r */
function onlyNamesControls(r) {
  let rest = r.plain.toLowerCase();
  for (const c of r.els) {
    const n = nameOf(c, roleOf(c) || 'button').toLowerCase();
    if (n) rest = rest.split(n).join(' ');
  }
  return saysNothing(rest);
}

/** Nothing but separators: not worth a line. @param {string} s */
function saysNothing(s) {
  return SEPARATORS_ONLY.test(s);
}
