// @ts-check
// The cockpit's Skills & memory tab: skills, memory facts (edit, delete), Record/Stop for a tab. Same-origin POSTs
// to /cockpit/*; everything from a page or a run goes into the DOM as text, never HTML. Loaded before cockpit.js,
// which hands it the helpers it needs.
'use strict';

/** @param {{$: (id: string) => HTMLElement, post: (path: string, body?: object) => Promise<any>,
 *           el: (tag: string, attrs?: Record<string, string>, text?: string) => HTMLElement}} deps */
// eslint-disable-next-line no-unused-vars
function cockpitSkills({ $, post, el }) {
  const note = (/** @type {string} */ text) => { $('record-note').textContent = text; };
  /** @type {string|null} */
  let recording = null;

  async function load() {
    if ($('panel-skills').hidden) return;
    let data;
    try { data = await post('/cockpit/skills'); } catch (e) { note(String(/** @type {Error} */ (e).message)); return; }
    renderSkills(data.skills);
    renderFacts(data.facts);
    const rec = data.recording[0];
    recording = rec ? rec.name : null;
    /** @type {HTMLButtonElement} */ ($('record-stop')).disabled = !recording;
    /** @type {HTMLButtonElement} */ ($('record-start')).disabled = !!recording;
    if (rec) note('Recording ' + rec.name + ' in ' + rec.pageId + ': ' + rec.steps + ' steps so far.');
  }

  /** @param {any[]} skills */
  function renderSkills(skills) {
    const body = $('skills');
    body.replaceChildren();
    for (const s of skills) {
      const tr = el('tr', { 'data-skill': s.name });
      const params = Object.entries(s.params).map(([k, v]) => v == null ? k + ' (secret)' : k + '=' + v).join(', ');
      for (const text of [s.name + ' r' + s.revision, s.scope, String(s.steps), params, s.until ? (s.until.text || s.until.selector || s.until.window || '') : '']) tr.append(el('td', {}, text));
      const cell = el('td');
      const del = el('button', { type: 'button', 'data-action': 'delete-skill' }, 'Delete');
      del.addEventListener('click', async () => { try { await post('/cockpit/skills/delete', { name: s.name }); void load(); } catch (e) { note(String(/** @type {Error} */ (e).message)); } });
      cell.append(del);
      tr.append(cell);
      body.append(tr);
    }
    $('skills-table').hidden = !skills.length;
    $('no-skills').hidden = !!skills.length;
  }

  /** @param {any[]} facts */
  function renderFacts(facts) {
    const body = $('facts');
    body.replaceChildren();
    for (const f of facts) {
      const tr = el('tr', { 'data-fact': f.id, class: 'fact ' + f.kind });
      tr.append(el('td', {}, f.kind), el('td', {}, f.scope));
      const text = /** @type {HTMLInputElement} */ (el('input', { 'aria-label': 'Fact', maxlength: '300' }));
      text.value = f.text;
      const textCell = el('td');
      textCell.append(text);
      tr.append(textCell, el('td', {}, f.source === 'page' ? 'from page' : f.via ? f.source + ' (' + f.via + ')' : f.source), el('td', {}, f.run));
      const cell = el('td');
      const save = el('button', { type: 'button', 'data-action': 'save-fact' }, 'Save');
      save.addEventListener('click', async () => { try { await post('/cockpit/memory/edit', { id: f.id, text: text.value }); note('Saved ' + f.id + '.'); void load(); } catch (e) { note(String(/** @type {Error} */ (e).message)); } });
      const del = el('button', { type: 'button', 'data-action': 'forget-fact' }, 'Delete');
      del.addEventListener('click', async () => { try { await post('/cockpit/memory/forget', { id: f.id }); void load(); } catch (e) { note(String(/** @type {Error} */ (e).message)); } });
      cell.append(save, del);
      tr.append(cell);
      body.append(tr);
    }
    $('facts-table').hidden = !facts.length;
    $('no-facts').hidden = !!facts.length;
  }

  /** The tabs to record: the Inbox's page list (kept up to date by cockpit.js) without its "no page" choice. */
  function syncPages() {
    const from = /** @type {HTMLSelectElement} */ ($('message-page'));
    const to = /** @type {HTMLSelectElement} */ ($('record-page'));
    const want = Array.from(from.options).filter((o) => o.value).map((o) => [o.value, o.textContent || o.value]);
    if (want.map((w) => w[0]).join() === Array.from(to.options).map((o) => o.value).join()) return;
    const keep = to.value;
    to.replaceChildren(...want.map(([v, t]) => { const o = el('option', { value: v }, t); return o; }));
    if (want.some((w) => w[0] === keep)) to.value = keep;
  }

  $('record-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = /** @type {HTMLInputElement} */ ($('record-name')).value.trim();
    const pageId = /** @type {HTMLSelectElement} */ ($('record-page')).value;
    try {
      let rec;
      try {
        rec = await post('/cockpit/record', { pageId, name });
      } catch (e) {
        const text = String(/** @type {Error} */ (e).message);
        // saving over a skill is the human's call: asked here, in the cockpit
        if (!/^A skill named .* exists/.test(text) || !window.confirm(text + '\n\nReplace the skill ' + name + '?')) throw e;
        rec = await post('/cockpit/record', { pageId, name, overwrite: true });
      }
      note('Recording ' + rec.name + ' in ' + rec.pageId + ': act in that tab, then Stop.');
    } catch (e) { note(String(/** @type {Error} */ (e).message)); }
    void load();
  });
  $('record-stop').addEventListener('click', async () => {
    if (!recording) return;
    const until = /** @type {HTMLInputElement} */ ($('record-until')).value.trim();
    try {
      const body = until ? { name: recording, until } : { name: recording };
      let rec = await post('/cockpit/record/stop', body);
      // the skill goes to pages of other origins: saving it anyway is the human's call, asked here
      if (rec.state === 'failed' && rec.otherOrigins && rec.otherOrigins.length &&
          window.confirm('The skill ' + rec.name + ' also goes to ' + rec.otherOrigins.join(', ') + '. Save it anyway?')) {
        rec = await post('/cockpit/record/stop', Object.assign({ confirmOrigins: rec.otherOrigins }, body));
      }
      note(rec.state === 'saved' ? 'Saved skill ' + rec.skill.name + ' (' + rec.skill.steps + ' steps).' : String(rec.error || rec.state));
    } catch (e) { note(String(/** @type {Error} */ (e).message)); }
    void load();
  });
  window.addEventListener('hashchange', () => { void load(); });
  setInterval(() => { syncPages(); void load(); }, 2000);
  syncPages();
  void load();
}
