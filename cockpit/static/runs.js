// @ts-check
// The cockpit's Runs tab: a quick-run box, the live run (plan, steps, the model's text, a model call in flight, each
// replan and its reason, the checks and the verdict, takeover card, cancel) over SSE, and the history (each run's end
// and why) whose Show renders a finished run from its trace. Loaded before cockpit.js, which hands it the helpers.
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
    for (const id of ['run-summary', 'run-title', 'run-state', 'run-id', 'run-meta']) setText($(id), '');
    delete $('run-summary').dataset.state;
    delete $('run-state').dataset.state;
    showModel('');
    showTakeover(null);
  }

  /** @param {string} text */
  function showModel(text) {
    setText($('run-model'), text);
    $('run-model').hidden = !text;
  }

  /** The live badge, and the same run's row in the history: they say the same state. @param {string} state */
  function showState(state) {
    setText($('run-state'), state);
    $('run-state').dataset.state = state;
    const row = current ? document.querySelector('#runs tr[data-run="' + CSS.escape(current) + '"]') : null;
    if (row instanceof HTMLElement) {
      row.dataset.state = state;
      const cell = row.querySelector('td.end .state');
      if (cell) setText(cell, state);
    }
  }

  /** A line in the steps table that is not a tool call: a phase, a check, the verdict. @param {string} kind
   *  @param {string} text @param {boolean} [bad] */
  function phaseRow(kind, text, bad = false) {
    const row = el('tr', { class: 'phase' + (bad ? ' failed' : ''), 'data-kind': kind });
    row.append(el('td', { colspan: '5' }, text));
    $('run-steps').append(row);
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
    if (e.type === 'run_start') {
      setText($('run-title'), e.task);
      setText($('run-id'), e.run);
      setText($('run-meta'), 'model ' + e.model + (e.endpoint ? ' at ' + e.endpoint : '') + (e.dryrun ? ' (dry run)' : '')
        + (e.allow && e.allow.length ? ' · allowed without asking: ' + e.allow.join(', ') : ''));
      showState('planning');
    } else if (e.type === 'state_change') {
      showState(e.to);
      if (e.to === 'replanning') phaseRow('replan', 'replanning: ' + short(e.why || 'no reason given', 400), true);
    } else if (e.type === 'model_start') {
      showModel('asking the model (' + e.phase + ', call ' + e.n + ')…');
    } else if (e.type === 'model_wait') {
      showModel('the model is working (' + e.phase + ', call ' + e.n + '): ' + e.seconds + ' s'
        + (e.received != null ? ', ' + e.received + ' characters streamed' : ''));
    } else if (e.type === 'model_call') {
      showModel('');
    } else if (e.type === 'plan_created') {
      const plan = $('run-plan');
      plan.replaceChildren(...e.steps.map((/** @type {string} */ s) => el('li', {}, s)));
      for (const c of e.stop_conditions || []) plan.append(el('li', { class: 'stop' }, 'stop when ' + c.kind + ' “' + c.value + '”'));
      if (e.batch > 1) phaseRow('plan', 'plan ' + e.batch + (e.why === 'the model revised its plan' ? ' (the model revised it)' : '') + ': ' + e.steps.join(' · '));
    } else if (e.type === 'stop_conditions') {
      const plan = $('run-plan');
      for (const li of [...plan.querySelectorAll('li.stop')]) li.remove();
      for (const c of e.conditions || []) plan.append(el('li', { class: 'stop' }, 'stop when ' + c.kind + ' “' + c.value + '”'));
      phaseRow('stop', 'stop conditions now: ' + (e.conditions || []).map((/** @type {any} */ c) => c.kind + ' “' + c.value + '”').join('; '));
    } else if (e.type === 'verification') {
      const checks = (e.checks || []).map((/** @type {any} */ c) => c.kind + ' “' + c.value + '” ' + (c.met ? 'met' : 'NOT met')).join('; ');
      phaseRow('verification', (e.final ? 'final check on the page now: ' : 'stop conditions: ') + (checks || 'none given'), !e.passed);
    } else if (e.type === 'verdict') {
      phaseRow('verdict', 'verdict: ' + (e.done ? 'done' : 'not done') + ' — ' + short(e.reason || '', 400), !e.done);
    } else if (e.type === 'nudge' || e.type === 'budget_warning') {
      phaseRow(e.type, e.type === 'nudge' ? 'nudge: ' + e.tool + ' called ' + e.times + ' times with no effect'
        : 'budget: ' + e.used + ' of ' + e.limit + ' ' + e.budget + ' used', true);
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
        // who answered: the human (cockpit, terminal), or words that are not the human's (the page's card, which its
        // scripts could answer; the MCP client that started the run as a task)
        const who = e.via === 'mcp' ? 'the MCP client' : e.via === 'page' ? 'the page card' : 'human';
        row.append(el('td', { colspan: '5' }, who + ': ' + e.action + ' via ' + e.via + (e.note ? ' — ' + e.note : '')));
        steps.append(row);
      }
    } else if (e.type === 'run_done') {
      setText($('run-summary'), e.state.toUpperCase() + ': ' + e.summary);
      $('run-summary').dataset.state = e.state;
      showState(e.state);
      showModel('');
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
    $('run-cancel').hidden = !live;
    if (!live) {  // a finished run: its trace, at once (JSON)
      const r = await fetch('/cockpit/runs/' + encodeURIComponent(id) + '/trace', { credentials: 'same-origin' });
      const data = await r.json();
      if (!r.ok) { $('run-error').textContent = (data.error && data.error.message) || 'HTTP ' + r.status; return; }
      for (const e of data.events || []) onEvent(e);
      if (!(data.events || []).some((/** @type {any} */ e) => e.type === 'run_done')) {
        setText($('run-summary'), 'INTERRUPTED: the trace ends without an end (the bridge stopped during the run).');
        $('run-summary').dataset.state = 'interrupted';
        showState('interrupted');
      }
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
      const why = END.includes(r.state) ? short(r.summary || '', 200) : (r.takeover ? 'waiting for you: ' + r.takeover.reason : '');
      const end = el('td', { class: 'end' });
      end.append(el('span', { class: 'state' }, r.state));
      tr.append(el('td', { class: 'mono' }, r.id), el('td', {}, short(r.task, 100)), end, el('td', { class: 'why' }, why), when, cell);
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
