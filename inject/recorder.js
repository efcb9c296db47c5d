// @ts-check
// dbg-bridge page client, part: the recorder: what the human does in this tab (and its same-origin frames) as steps
// for a skill. Shares one IIFE with the other parts (inject/__init__.py).
//
// Only the human's own input is recorded (event.isTrusted): the bridge's synthesized actions, a replaying skill
// among them, are not. Typing is one `fill` per field with its final value; a password's value never leaves the
// page (the step says `secret` and the skill asks for it as a parameter). The recording lives in sessionStorage,
// so it goes on across a reload and a same-origin navigation in the tab; steps not yet acknowledged by the bridge
// are kept there too and sent again by the next document (the bridge takes each `seq` once).

const REC_KEY = '__dbg_rec';
/** How many recent steps a document keeps for its successor to send again (the bridge drops the ones it has). */
const REC_JOURNAL = 30;
/** Controls a click on which is a step (a click in a text field only focuses it; typing is the step). */
const REC_CLICKABLE = 'button,a[href],input,select,textarea,label,summary,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=checkbox],[role=radio],[role=switch],[onclick]';
const REC_TEXT_TYPES = /^(text|email|password|search|tel|url|number|date|time|datetime-local|month|week|color|)$/;

/** @typedef {{role: string, name: string, text: string, selector: string, tag: string, label: string, inputType: string}} RecordedTarget */
/** @typedef {{seq: number, action: string, frame: string, url: string, t: number, target?: RecordedTarget, value?: string, secret?: boolean, key?: string}} RecordedStep */

/** @type {((step: RecordedStep) => void) | null} */
let recordUp = null; // set by the launcher: the host sends a step to the bridge, a frame posts it to its host

const recorder = {
  /** @type {{name: string, seq: number, journal: RecordedStep[]}|null} */ state: null,
  /** The field being typed into and its latest value, sent as one fill when the human moves on. @type {Element|null} */ typing: null,
  installed: false,
  /** The latest text that appeared in the page (what the stop condition is prefilled with). */
  lastText: '',
  /** @type {MutationObserver|null} */ observer: null,
  /** @type {HTMLElement|null} */ card: null,
  /** When the human last pressed a key that is a step. */
  pressedAt: 0,

  /** Start (or go on with) a recording named `name`; the host tells its frames. @param {string} name */
  start(name) {
    if (!this.state || this.state.name !== name) this.state = { name, seq: 0, journal: [] };
    if (hostRole()) this.save(); // a frame shares the tab's sessionStorage: only the host writes the recording
    this.install();
    if (hostRole()) {
      this.tellFrames(true, name);
      this.showCard();
    }
    return { recording: true, name };
  },

  stop() {
    this.flush();
    const name = this.state ? this.state.name : null;
    this.state = null;
    this.typing = null;
    if (hostRole()) try { sessionStorage.removeItem(REC_KEY); } catch (_) { /* storage off */ }
    if (hostRole()) { this.tellFrames(false, ''); if (this.card) { this.card.remove(); this.card = null; } }
    return { recording: false, name };
  },

  save() {
    try { sessionStorage.setItem(REC_KEY, JSON.stringify(this.state)); } catch (_) { /* storage off: this document only */ }
  },

  /** At boot: a recording this tab had goes on; the host says where it landed and sends what it may have lost. */
  resume() {
    let saved = null;
    try { saved = JSON.parse(sessionStorage.getItem(REC_KEY) || 'null'); } catch (_) { saved = null; }
    if (!saved || typeof saved.name !== 'string') return;
    this.state = { name: saved.name, seq: Number(saved.seq) || 0, journal: Array.isArray(saved.journal) ? saved.journal : [] };
    this.install();
    if (!hostRole()) return;
    for (const step of this.state.journal) if (recordUp) recordUp(step);
    this.emit({ action: 'load', frame: 'host' });
    this.showCard();
  },

  /** @param {boolean} on @param {string} name */
  tellFrames(on, name) {
    for (const entry of router.frames.values()) {
      try { if (entry.el.contentWindow && sameOrigin(entry.el)) entry.el.contentWindow.postMessage({ __dbg: 1, type: 'dbg_record', payload: { on, name } }, window.origin); } catch (_) { /* gone */ }
    }
  },

  install() {
    if (this.installed) return;
    this.installed = true;
    const opts = { capture: true, passive: true };
    document.addEventListener('click', (ev) => this.onClick(ev), opts);
    document.addEventListener('input', (ev) => this.onInput(ev), opts);
    document.addEventListener('change', (ev) => this.onChange(ev), opts);
    document.addEventListener('focusout', (ev) => { if (this.typing && ev.target === this.typing) this.flush(); }, opts);
    document.addEventListener('keydown', (ev) => this.onKey(ev), opts);
    window.addEventListener('pagehide', () => { this.flush(); });
    this.observer = new MutationObserver((records) => {
      if (!this.state) return;
      for (const r of records) {
        for (const n of Array.from(r.addedNodes)) {
          const el = n.nodeType === 1 ? /** @type {Element} */ (n) : n.parentElement;
          if (!el || this.ours(el)) continue;
          const t = clip(n.textContent || '', 80);
          if (t) this.lastText = t;
        }
      }
    });
    this.observer.observe(document.documentElement, { childList: true, subtree: true });
  },

  /** The bridge's own panel and cards are never part of a recording. @param {Element} el */
  ours(el) {
    for (let at = /** @type {Element|null} */ (el); at; at = hostOf(at) || at.parentElement) {
      if (at.tagName === 'DBG-HUMAN') return true;
      if (!at.parentElement && !hostOf(at)) break;
    }
    return false;
  },

  /** The element an event happened on, inside open shadow roots. @param {Event} ev @returns {Element|null} */
  origin(ev) {
    const first = ev.composedPath()[0];
    const el = first instanceof Element ? first : /** @type {any} */ (first) && /** @type {any} */ (first).parentElement;
    return el && !this.ours(el) ? el : null;
  },

  /** @param {Event} ev */
  onClick(ev) {
    if (!this.state || !ev.isTrusted) return;
    const at = this.origin(ev);
    if (!at) return;
    // Enter in a form clicks its submit button for it (detail 0, same moment): the press is the step
    if (/** @type {MouseEvent} */ (ev).detail === 0 && Date.now() - this.pressedAt < 100) return;
    const el = at.closest(REC_CLICKABLE) || at;
    if (this.isField(el) || el.tagName === 'SELECT' || el.tagName === 'OPTION') return; // focus; the typing or choice is the step
    if (el.tagName === 'INPUT' && /^(checkbox|radio)$/i.test(/** @type {HTMLInputElement} */ (el).type)) return; // its change is the step
    if (el.tagName === 'LABEL') {
      const c = /** @type {HTMLLabelElement} */ (el).control;
      if (c) return; // the control it labels gets the focus, the check or its own click
    }
    this.emit({ action: /** @type {MouseEvent} */ (ev).detail === 2 ? 'dblclick' : 'click', target: this.describe(el) });
  },

  /** @param {Element} el */
  isField(el) {
    if (el.tagName === 'TEXTAREA') return true;
    if (el.tagName === 'INPUT') return REC_TEXT_TYPES.test((el.getAttribute('type') || '').toLowerCase());
    return /** @type {HTMLElement} */ (el).isContentEditable;
  },

  /** @param {Event} ev */
  onInput(ev) {
    if (!this.state || !ev.isTrusted) return;
    const el = this.origin(ev);
    if (!el || !this.isField(el)) return;
    if (this.typing && this.typing !== el) this.flush();
    this.typing = el;
  },

  /** @param {Event} ev */
  onChange(ev) {
    if (!this.state || !ev.isTrusted) return;
    const el = this.origin(ev);
    if (!el) return;
    if (this.isField(el)) { if (this.typing === el) this.flush(); return; }
    this.flush();
    if (el.tagName === 'SELECT') {
      const s = /** @type {HTMLSelectElement} */ (el);
      const opt = s.selectedOptions[0];
      this.emit({ action: 'select', target: this.describe(el), value: opt ? (opt.textContent || '').trim() || opt.value : s.value });
    } else if (el.tagName === 'INPUT' && /^(checkbox|radio)$/i.test(/** @type {HTMLInputElement} */ (el).type)) {
      this.emit({ action: /** @type {HTMLInputElement} */ (el).checked ? 'check' : 'uncheck', target: this.describe(el) });
    }
  },

  /** Enter, Escape and shortcuts (a modifier held) are steps; other keys are typing. @param {Event} ev */
  onKey(ev) {
    const k = /** @type {KeyboardEvent} */ (ev);
    if (!this.state || !ev.isTrusted) return;
    if (k.altKey && k.shiftKey) return; // the bridge's own hotkeys
    const mods = (k.ctrlKey ? 'Control+' : '') + (k.metaKey ? 'Meta+' : '') + (k.altKey ? 'Alt+' : '');
    if (!(k.key === 'Enter' || k.key === 'Escape' || (mods && k.key.length === 1))) return;
    const el = this.origin(ev) || document.body;
    if (mods && this.isField(el)) return; // Control+a, Control+v… in a field edit it: its fill is the step
    if (this.typing) this.flush();
    this.pressedAt = Date.now();
    this.emit({ action: 'press', key: mods + (k.key.length === 1 ? k.key.toLowerCase() : k.key), target: this.describe(el) });
  },

  /** Send the field being typed into as one fill with its final value. */
  flush() {
    const el = this.typing;
    this.typing = null;
    if (!el || !this.state) return;
    const secret = el.tagName === 'INPUT' && /** @type {HTMLInputElement} */ (el).type.toLowerCase() === 'password';
    const value = /** @type {HTMLElement} */ (el).isContentEditable ? elementText(el) : String(/** @type {HTMLInputElement} */ (el).value);
    this.emit(secret ? { action: 'fill', target: this.describe(el), secret: true } : { action: 'fill', target: this.describe(el), value });
  },

  /** What finds `el` again on another load of the page: role + accessible name, text, a stable selector.
   * @param {Element} el @returns {RecordedTarget} */
  describe(el) {
    return withTextCache(() => {
      const role = roleOf(el);
      const labels = /** @type {any} */ (el).labels;
      const label = labels && labels.length ? clip(labelText(labels[0]), 100) : clip(el.getAttribute('placeholder') || el.getAttribute('aria-label') || el.getAttribute('name') || '', 100);
      return { role, name: role ? nameOf(el, role) : '', text: this.isField(el) ? '' : clip(elementText(el), 100), selector: stableSelector(el),
        tag: el.tagName.toLowerCase(), label, inputType: el.tagName === 'INPUT' ? /** @type {HTMLInputElement} */ (el).type : '' };
    });
  },

  /** @param {{action: string, frame?: string, target?: RecordedTarget, value?: string, secret?: boolean, key?: string}} partial */
  emit(partial) {
    if (!this.state) return;
    const step = /** @type {RecordedStep} */ (Object.assign({ seq: 0, frame: 'host', url: location.href, t: Date.now() }, partial));
    if (hostRole()) {
      step.seq = ++this.state.seq;
      this.state.journal = this.state.journal.concat([step]).slice(-REC_JOURNAL);
      this.save();
    }
    if (recordUp) recordUp(step);
  },

  /** The panel's card while recording: the name and Stop (which asks for the stop condition first). */
  showCard() {
    if (!this.state) return;
    if (this.card && this.card.isConnected) return;
    const card = human.el('div', { class: 'card', 'data-recording': this.state.name, role: 'status' });
    card.append(human.el('div', { class: 'who' }, 'Recording a skill'), human.el('div', { class: 'text' }, this.state.name));
    const row = human.el('div', { class: 'row' });
    const stop = human.el('button', { class: 'primary', 'data-answer': 'stop-recording' }, 'Stop');
    stop.addEventListener('click', hand.only(() => this.askUntil(card)));
    row.append(stop);
    card.append(row);
    human.ensure().append(card);
    this.card = card;
  },

  /** Stop: the human confirms what shows the skill worked (text seen at the end), then the bridge saves it. @param {HTMLElement} card */
  askUntil(card) {
    this.flush();
    card.replaceChildren();
    card.append(human.el('div', { class: 'who' }, 'What shows it worked?'));
    const input = /** @type {HTMLInputElement} */ (human.el('input', { 'aria-label': 'Text seen at the end', placeholder: 'Text on the page at the end (optional)' }));
    input.value = this.lastText;
    const row = human.el('div', { class: 'row' });
    const save = human.el('button', { class: 'primary', 'data-answer': 'save-skill' }, 'Save skill');
    const send = () => {
      const text = input.value.trim();
      if (sendUp && this.state) sendUp({ type: 'event', kind: 'record_stop', text: this.state.name, data: text ? { until: { text } } : {} });
      this.stop();
    };
    save.addEventListener('click', hand.only(send));
    input.addEventListener('keydown', hand.only((e) => { if (e.key === 'Enter') send(); }));
    row.append(save);
    card.append(input, row);
    input.focus();
  },

  /** The panel's Record card (Alt+Shift+R): a name, then Record. */
  offer() {
    if (this.state) { this.showCard(); return; }
    const card = human.el('div', { class: 'card', 'data-record': '1' });
    const input = /** @type {HTMLInputElement} */ (human.el('input', { 'aria-label': 'Skill name', placeholder: 'Skill name, e.g. add-customer' }));
    const row = human.el('div', { class: 'row' });
    const go = human.el('button', { class: 'primary', 'data-answer': 'record' }, 'Record');
    const start = () => {
      const name = input.value.trim();
      if (!name) return;
      card.remove();
      if (sendUp) sendUp({ type: 'event', kind: 'record_start', text: name, data: { name } });
    };
    go.addEventListener('click', hand.only(start));
    input.addEventListener('keydown', hand.only((e) => { if (e.key === 'Enter') start(); }));
    row.append(go);
    card.append(human.el('div', { class: 'who' }, 'Record a skill'), input, row);
    human.ensure().append(card);
    input.focus();
  },
};

/** Whether this window runs the host client (frames post their steps to it). @type {boolean|null} */
let isHostWindow = null;
function hostRole() {
  if (isHostWindow === null) isHostWindow = !findHostWindow();
  return isHostWindow;
}

/** A selector that survives a re-render: an id, a test id, a name or an aria-label where the element has one, else
 * a CSS path from the nearest ancestor with an id. @param {Element} el */
function stableSelector(el) {
  const tag = el.tagName.toLowerCase();
  for (const attr of ['data-testid', 'data-test', 'data-cy', 'name', 'aria-label']) {
    const v = el.getAttribute(attr);
    if (v && deepQueryAll(tag + '[' + attr + '=' + JSON.stringify(v) + ']').length === 1) return tag + '[' + attr + '=' + JSON.stringify(v) + ']';
  }
  return human.selector(el);
}

/** A frame's recorder: started and stopped by its host; its steps go to the host, which says which frame they are from. */
function installFrameRecorder() {
  window.addEventListener('message', (ev) => {
    if (ev.origin !== window.origin || !isEnvelope(ev.data) || ev.data.type !== 'dbg_record' || !isSameOriginAncestor(/** @type {Window} */ (ev.source))) return;
    const p = ev.data.payload || {};
    if (p.on) recorder.start(String(p.name)); else recorder.stop();
  });
}

/** The host takes its frames' steps and says which frame each came from. */
function installHostRecorder() {
  window.addEventListener('message', (ev) => {
    if (ev.origin !== window.origin || !isEnvelope(ev.data) || ev.data.type !== 'dbg_recorded' || !recorder.state) return;
    for (const entry of router.frames.values()) {
      if (entry.el.contentWindow !== ev.source) continue;
      const step = Object.assign({}, ev.data.payload, { frame: entry.id });
      recorder.emit(step);
      return;
    }
  });
}
