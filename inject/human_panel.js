// @ts-check
// dbg-bridge page client, part: the human panel: questions, consent, toasts, the element picker, messages. Shares one IIFE with the other parts (inject/__init__.py).

/** @type {((msg: EventMsg) => void) | null} */
let sendUp = null; // set by the host launcher: sends an event to the bridge (acknowledged, retried, taken once)

/** Whose hand is on the panel. A card takes only a person's click or key: a trusted event (`isTrusted`: page
 * scripts cannot make one) while the bridge is not sending trusted input itself (the extension's debugger input,
 * marked around each request in `ext.request`; the bridge also refuses answers during its own input). */
const hand = {
  busy: 0,
  /** performance.now() until which a trusted event may still be the bridge's own input's */
  until: 0,
  /** @param {Event} ev */
  human(ev) { return !!ev && ev.isTrusted === true && this.busy === 0 && performance.now() >= this.until; },
  /** Run `fn` (which sends the bridge's trusted input) with the panel deaf meanwhile. @template T @param {() => Promise<T>} fn @returns {Promise<T>} */
  async bridgeInput(fn) {
    this.busy++;
    try { return await fn(); } finally { this.busy--; this.until = performance.now() + 300; }
  },
  /** A listener that runs `fn` for a person's event only. @param {(ev: any) => void} fn */
  only(fn) { return (/** @type {Event} */ ev) => { if (this.human(ev)) fn(ev); }; },
};

const PANEL_CSS = `
  :host { all: initial; }
  .wrap { position: fixed; right: 16px; bottom: 16px; z-index: 2147483647; display: flex; flex-direction: column;
    gap: 8px; max-width: 380px; font: 14px/1.4 system-ui, sans-serif; color: #111; }
  .card { background: #fff; border: 1px solid #d0d0d7; border-left: 4px solid #5b4bdb; border-radius: 8px;
    box-shadow: 0 6px 24px rgba(0,0,0,.18); padding: 10px 12px; }
  .card.consent { border-left-color: #d97706; } .toast.error { border-left-color: #dc2626; }
  .toast.success { border-left-color: #16a34a; } .toast.warning { border-left-color: #d97706; }
  .who { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #666; margin-bottom: 2px; }
  pre { max-height: 140px; overflow: auto; background: #f5f5f7; padding: 6px; border-radius: 4px; font-size: 12px;
    white-space: pre-wrap; margin: 6px 0; }
  .row { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
  button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #bbb; background: #f7f7f9; cursor: pointer; }
  button.primary { background: #5b4bdb; border-color: #5b4bdb; color: #fff; }
  input, textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 4px 6px; border: 1px solid #bbb; border-radius: 6px; }
`;

const human = {
  /** @type {HTMLElement|null} */ host: null,
  /** @type {HTMLElement|null} */ wrap: null,
  /** @type {Map<string, HTMLElement>} */ cards: new Map(),
  picking: /** @type {null | {questionId: string|null, box: HTMLElement, onMove: (e: Event) => void, onClick: (e: Event) => void, onKey: (e: KeyboardEvent) => void}} */ (null),

  ensure() {
    if (this.host && this.host.isConnected && this.wrap) return this.wrap;
    this.host = document.createElement('dbg-human');
    const root = this.host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = PANEL_CSS;
    this.wrap = document.createElement('div');
    this.wrap.className = 'wrap';
    root.append(style, this.wrap);
    (document.body || document.documentElement).appendChild(this.host);
    return this.wrap;
  },

  /** @param {string} tag @param {Record<string, string>} [attrs] @param {string} [text] */
  el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text != null) e.textContent = text; // always text, never HTML: questions come from the agent
    return e;
  },

  /** @param {{questionId: string, kind: string, text: string, choices: string[], detail: string, note?: boolean, dismiss?: string}} q */
  ask(q) {
    if (q.dismiss) { this.remove(q.dismiss); return { dismissed: q.dismiss }; }
    const wrap = this.ensure();
    this.remove(q.questionId);
    const card = this.el('div', { class: 'card ' + q.kind, 'data-question': q.questionId, role: 'dialog', 'aria-label': 'Question from the agent' });
    card.append(this.el('div', { class: 'who' }, q.kind === 'consent' ? 'Agent wants to run code' : 'Agent asks'), this.el('div', { class: 'text' }, q.text));
    if (q.detail) card.append(this.el('pre', {}, q.detail));
    const row = this.el('div', { class: 'row' });
    const answer = (/** @type {any} */ a) => { this.remove(q.questionId); this.emit('answer', String(a && a.text || a), { answer: a }, q.questionId); };
    if (q.kind === 'confirm') {
      for (const [label, value] of [['Yes', true], ['No', false]]) {
        const b = this.el('button', { class: value ? 'primary' : '', 'data-answer': String(value) }, String(label));
        b.addEventListener('click', hand.only(() => answer(value)));
        row.append(b);
      }
    } else if (q.kind === 'choice' || q.kind === 'consent') {
      const note = q.note && q.kind === 'choice' ? /** @type {HTMLInputElement} */ (this.el('input', { placeholder: 'Add a note (optional)', 'aria-label': 'Note', 'data-note': '' })) : null;
      if (note) card.append(note);
      q.choices.forEach((c, i) => {
        const b = this.el('button', { class: i === 0 ? 'primary' : '', 'data-answer': c }, c);
        b.addEventListener('click', hand.only(() => answer(note ? { choice: c, note: note.value, text: c } : c)));
        row.append(b);
      });
    } else if (q.kind === 'text') {
      const input = /** @type {HTMLTextAreaElement} */ (this.el('textarea', { rows: '2', 'aria-label': 'Your answer' }));
      const b = this.el('button', { class: 'primary', 'data-answer': 'send' }, 'Send');
      b.addEventListener('click', hand.only(() => answer(input.value)));
      input.addEventListener('keydown', hand.only((e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); answer(input.value); } }));
      card.append(input);
      row.append(b);
    } else if (q.kind === 'pick') {
      const b = this.el('button', { class: 'primary', 'data-answer': 'pick' }, 'Pick an element');
      b.addEventListener('click', hand.only(() => this.startPicker(q.questionId)));
      row.append(b);
    }
    card.append(row);
    wrap.append(card);
    this.cards.set(q.questionId, card);
    return { shown: q.questionId };
  },

  /** @param {string} id */
  remove(id) {
    const card = this.cards.get(id);
    if (card) card.remove();
    this.cards.delete(id);
  },

  /** @param {{message: string, level: string, durationMs: number}} n */
  notify(n) {
    const card = this.el('div', { class: 'card toast ' + (n.level || 'info'), role: 'status' });
    card.append(this.el('div', { class: 'who' }, 'Agent'), this.el('div', { class: 'text' }, n.message));
    this.ensure().append(card);
    setTimeout(() => card.remove(), Math.max(1000, Number(n.durationMs) || 5000));
    return { shown: true };
  },

  /** @param {string} kind @param {string} text @param {Record<string, any>} data @param {string} [questionId] */
  emit(kind, text, data, questionId) {
    if (sendUp) sendUp(/** @type {any} */ ({ type: 'event', kind, text: String(text).slice(0, 8000), data, questionId }));
  },

  /** The element picker: hover highlights, click selects (then an optional note), Escape cancels. @param {string|null} questionId */
  startPicker(questionId) {
    if (this.picking) this.stopPicker();
    const box = this.el('div');
    box.style.cssText = 'position: fixed; pointer-events: none; border: 2px solid #5b4bdb; background: rgba(91,75,219,.12); z-index: 2147483646; display: none;';
    this.ensure().append(box);
    /** @param {Event} e */
    const under = (e) => {
      const me = /** @type {MouseEvent} */ (e);
      let t = document.elementFromPoint(me.clientX, me.clientY);
      // into open shadow roots: the innermost element under the pointer
      while (t && t.shadowRoot && t !== this.host) { const inner = t.shadowRoot.elementFromPoint(me.clientX, me.clientY); if (!inner || inner === t) break; t = inner; }
      return t && t !== this.host ? t : null;
    };
    const onMove = (/** @type {Event} */ e) => {
      const t = under(e);
      if (!t) return;
      const r = t.getBoundingClientRect();
      Object.assign(box.style, { display: 'block', left: r.left + 'px', top: r.top + 'px', width: r.width + 'px', height: r.height + 'px' });
    };
    const onClick = (/** @type {Event} */ e) => {
      if (!hand.human(e)) return; // a page script's click picks nothing
      const t = under(e);
      if (!t) return;
      e.preventDefault();
      e.stopPropagation();
      this.stopPicker();
      this.selected(t, questionId);
    };
    const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Escape') this.stopPicker(); };
    document.addEventListener('mousemove', onMove, true);
    document.addEventListener('click', onClick, true);
    document.addEventListener('keydown', onKey, true);
    this.picking = { questionId, box, onMove, onClick, onKey };
  },

  stopPicker() {
    const p = this.picking;
    if (!p) return;
    document.removeEventListener('mousemove', p.onMove, true);
    document.removeEventListener('click', p.onClick, true);
    document.removeEventListener('keydown', p.onKey, true);
    p.box.remove();
    this.picking = null;
  },

  /** A selector for el that deepQueryAll finds again: one CSS path per tree, joined by >>> across shadow roots. @param {Element} el */
  selector(el) {
    const host = hostOf(el);
    const inTree = this.treeSelector(el);
    return host ? this.selector(host) + ' >>> ' + inTree : inTree;
  },

  /** A CSS path to el within its own tree (document or shadow root). @param {Element} el */
  treeSelector(el) {
    if (el.id) return '#' + CSS.escape(el.id);
    const parts = [];
    for (let e = /** @type {Element|null} */ (el); e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
      if (e.id) { parts.unshift('#' + CSS.escape(e.id)); break; }
      const parent = e.parentElement;
      const same = parent ? Array.from(parent.children).filter((c) => c.tagName === /** @type {Element} */ (e).tagName) : [];
      parts.unshift(e.tagName.toLowerCase() + (same.length > 1 ? ':nth-of-type(' + (same.indexOf(e) + 1) + ')' : ''));
    }
    return parts.join(' > ');
  },

  /** The human picked `el`: answer the question it was for, or send element_selected (with an optional note). @param {Element} el @param {string|null} questionId */
  selected(el, questionId) {
    /** @type {any} */ (window).__dbgSelected = el;
    const info = Object.assign({ ref: refs.of(el), selector: this.selector(el), text: clip(withTextCache(() => elementText(el)), 200),
      role: roleOf(el) || el.tagName.toLowerCase() }, { source: sourceOf(el) });
    // a compiled position (React 19 without the plugin's transform) goes with its module's map: the bridge maps it back
    const gen = info.source.generated;
    const mapped = gen ? sourceMapOf(gen.url).then((m) => { gen.map = m; }) : Promise.resolve();
    if (questionId) {
      this.remove(questionId);
      void mapped.then(() => this.emit('answer', info.selector, { answer: info }, questionId));
      return;
    }
    const card = this.el('div', { class: 'card', 'data-picked': info.ref });
    card.append(this.el('div', { class: 'who' }, 'Send to the agent'), this.el('div', { class: 'text' }, info.selector));
    const note = /** @type {HTMLInputElement} */ (this.el('input', { placeholder: 'Add a note (optional)', 'aria-label': 'Note' }));
    const row = this.el('div', { class: 'row' });
    const send = this.el('button', { class: 'primary', 'data-answer': 'send' }, 'Send');
    const cancel = this.el('button', {}, 'Cancel');
    const done = (/** @type {boolean} */ go) => {
      card.remove();
      if (go) void mapped.then(() => this.emit('element_selected', note.value || info.selector, Object.assign(info, { note: note.value })));
    };
    send.addEventListener('click', hand.only(() => done(true)));
    cancel.addEventListener('click', () => done(false));
    if (info.source.file) {
      const open = this.el('button', { 'data-answer': 'open' }, 'Open in editor');
      open.addEventListener('click', hand.only(() => {
        card.remove();
        void mapped.then(() => this.emit('open_file', info.source.file + ':' + (info.source.line || 1), { file: info.source.file, line: info.source.line, column: info.source.column, ref: info.ref, via: 'picker', generated: gen }));
      }));
      row.append(open);
    }
    note.addEventListener('keydown', hand.only((e) => { if (e.key === 'Enter') done(true); }));
    row.append(send, cancel);
    card.append(note, row);
    this.ensure().append(card);
    note.focus();
  },

  /** A message box for the human (Alt+Shift+M). */
  compose() {
    const card = this.el('div', { class: 'card', 'data-compose': '1' });
    const box = /** @type {HTMLTextAreaElement} */ (this.el('textarea', { rows: '3', placeholder: 'Message the agent…', 'aria-label': 'Message' }));
    const row = this.el('div', { class: 'row' });
    const send = this.el('button', { class: 'primary', 'data-answer': 'send' }, 'Send');
    send.addEventListener('click', hand.only(() => { if (box.value.trim()) this.emit('message', box.value, { url: location.href }); card.remove(); }));
    row.append(send);
    card.append(this.el('div', { class: 'who' }, 'Message the agent'), box, row);
    this.ensure().append(card);
    box.focus();
  },
};
