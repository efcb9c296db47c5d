// @ts-check
// The cockpit's Runs tab: a quick-run box, the live run (plan, steps, the model's text, takeover card, cancel) over
// SSE, and the history with each run's trace. Loaded before cockpit.js, which hands it the helpers it needs.
// Everything a model, a page or a tool supplied goes into the DOM as textContent.
'use strict';

/** @param {{$: (id: string) => HTMLElement, post: (path: string, body?: object) => Promise<any>,
 *           el: (tag: string, attrs?: Record<string, string>, text?: string) => HTMLElement,
 *           setText: (node: Element, text: string) => void, ago: (t: number) => string}} deps */
// eslint-disable-next-line no-unused-vars
function cockpitRuns({ $, post, el, setText, ago }) {
  /** @type {EventSource|null} */
  let stream = null;
  /** @type {string|null} */
  let current = null;
  /** @type {any} */
  let takeover = null;

  const short = (/** @type {any} */ v, n = 160) => {
    const text = (typeof v === 'string' ? v : JSON.stringify(v)).replace(/\s+/g, ' ');
    return text.length > n ? text.slice(0, n - 1) + '…' : text;
  };

  function clearLive() {
    for (const id of ['run-plan', 'run-steps']) $(id).replaceChildren();
    setText($('run-summary'), '');
    showTakeover(null);
  }

  /** @param {any} t */
  function showTakeover(t) {
    takeover = t;
    $('run-takeover').hidden = !t;
    $('count-takeovers').hidden = !t;
    if (t) {
      setText($('takeover-text'), t.reason + (t.question ? ' — ' + t.question : ''));
      /** @type {HTMLInputElement} */ ($('takeover-note')).value = '';
    }
  }

  /** @param {any} e */
  function onEvent(e) {
    const steps = $('run-steps');
    if (e.type === 'run_start') setText($('run-title'), e.task);
    else if (e.type === 'state_change') { setText($('run-state'), e.to); $('run-state').dataset.state = e.to; }
    else if (e.type === 'plan_created') {
      const plan = $('run-plan');
      plan.replaceChildren(...e.steps.map((/** @type {string} */ s) => el('li', {}, s)));
      for (const c of e.stop_conditions || []) plan.append(el('li', { class: 'stop' }, 'stop when ' + c.kind + ' “' + c.value + '”'));
    } else if (e.type === 'tool_call') {
      const row = el('tr', { 'data-step': String(e.step || 'check'), 'data-tool': e.tool });
      row.append(el('td', {}, e.step ? String(e.step) : 'check'), el('td', {}, e.tool), el('td', { class: 'args' }, short(e.args || {}, 120)),
        el('td', { class: 'result' }, '…'), el('td', { class: 'num' }, ''));
      steps.append(row);
    } else if (e.type === 'tool_result') {
      const row = /** @type {HTMLElement|null} */ (steps.lastElementChild);
      if (row) {
        const cells = row.children;
        setText(cells[3], (e.ok ? '' : 'error: ') + (e.coerced ? '(' + e.coerced.join('; ') + ') ' : '') + short(e.text, 300));
        cells[3].classList.toggle('error', !e.ok);
        setText(cells[4], String(Math.round(e.ms || 0)));
        if (e.image && current && e.step) {
          const img = el('img', { class: 'shot', alt: 'screenshot of step ' + e.step,
            src: '/cockpit/runs/' + encodeURIComponent(current) + '/image/' + e.step });
          cells[3].append(img);
        }
      }
    } else if (e.type === 'message') {
      const row = el('tr', { class: 'model-text' });
      const cell = el('td', { colspan: '5' }, 'model: ' + short(e.text, 600));
      row.append(cell);
      steps.append(row);
    } else if (e.type === 'human') {
      if (e.event === 'pause') showTakeover(e.takeover);
      else {
        showTakeover(null);
        const row = el('tr', { class: 'human' });
        row.append(el('td', { colspan: '5' }, 'human: ' + e.action + ' via ' + e.via + (e.note ? ' — ' + e.note : '')));
        steps.append(row);
      }
    } else if (e.type === 'run_done') {
      setText($('run-summary'), e.state.toUpperCase() + ': ' + e.summary);
      $('run-summary').dataset.state = e.state;
      showTakeover(null);
      $('run-cancel').hidden = true;
      if (stream) { stream.close(); stream = null; }
      void history();
    }
  }

  const END = ['done', 'failed', 'blocked', 'needs_clarification', 'cancelled', 'interrupted'];

  /** @param {string} id @param {boolean} live */
  async function follow(id, live) {
    if (stream) { stream.close(); stream = null; }
    current = id;
    clearLive();
    $('run-live').hidden = false;
    $('run-live').dataset.run = id;
    $('run-cancel').hidden = false;
    if (!live) {  // a past run: its trace, at once
      const data = await (await fetch('/cockpit/runs/' + encodeURIComponent(id) + '/events', { credentials: 'same-origin' })).json();
      for (const e of data.events || []) onEvent(e);
      return;
    }
    stream = new EventSource('/cockpit/runs/' + encodeURIComponent(id) + '/events');
    stream.onmessage = (m) => onEvent(JSON.parse(m.data));
  }

  async function history() {
    const data = await (await fetch('/cockpit/runs', { credentials: 'same-origin' })).json();
    const rows = data.runs || [];
    $('no-runs').hidden = rows.length > 0;
    $('runs-table').hidden = rows.length === 0;
    $('runs').replaceChildren(...rows.map((/** @type {any} */ r) => {
      const tr = el('tr', { 'data-run': r.id, 'data-state': r.state });
      const open = el('button', { type: 'button' }, 'Show');
      open.addEventListener('click', () => void follow(r.id, !END.includes(r.state)));
      const when = el('td', { class: 'ago', 'data-time': String(r.created) }, ago(r.created));
      const cell = el('td');
      cell.append(open);
      tr.append(el('td', { class: 'mono' }, r.id), el('td', {}, short(r.task, 100)), el('td', {}, r.state), when, cell);
      if (r.takeover && r.id !== current) void follow(r.id, true);
      return tr;
    }));
  }

  $('run-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const task = /** @type {HTMLInputElement} */ ($('run-task')).value.trim();
    if (!task) return;
    try {
      const out = await post('/cockpit/runs/start', { task, dryrun: /** @type {HTMLInputElement} */ ($('run-dry')).checked });
      $('run-error').textContent = '';
      await follow(out.id, true);
      void history();
    } catch (e) { $('run-error').textContent = String(/** @type {any} */ (e).message || e); }
  });
  $('run-cancel').addEventListener('click', async () => {
    if (!current) return;
    try { await post('/cockpit/runs/cancel', { id: current }); } catch (e) { $('run-error').textContent = String(/** @type {any} */ (e).message || e); }
  });
  for (const b of document.querySelectorAll('[data-takeover]')) {
    b.addEventListener('click', async () => {
      if (!current || !takeover) return;
      const note = /** @type {HTMLInputElement} */ ($('takeover-note')).value;
      try {
        await post('/cockpit/runs/resume', { id: current, takeoverId: takeover.id, action: b.getAttribute('data-takeover'), note });
      } catch (e) { $('run-error').textContent = String(/** @type {any} */ (e).message || e); }
    });
  }

  return { show: () => void history() };
}
