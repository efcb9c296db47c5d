// @ts-check
// The cockpit's one script: live state and activity over SSE (/cockpit/events), actions as same-origin POSTs.
// Everything a page or an agent supplied is put into the DOM with textContent, never as HTML.
'use strict';
(() => {
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

  /** @param {string} tag @param {Record<string, string>} [attrs] @param {string} [text] */
  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text != null) node.textContent = text;
    return node;
  }

  /** @param {string} path @param {object} [body] */
  async function post(path, body) {
    const res = await fetch(path, {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body || {}),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error((data.error && data.error.message) || res.status + ' ' + res.statusText);
    return data;
  }

  function ago(/** @type {number} */ t) {
    const s = Math.max(0, Date.now() / 1000 - t);
    if (s < 5) return 'just now';
    if (s < 60) return Math.floor(s) + ' s ago';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    return Math.floor(s / 3600) + ' h ago';
  }

  function refreshTimes() {
    for (const node of document.querySelectorAll('.ago[data-time]')) {
      const t = Number(node.getAttribute('data-time'));
      if (t) node.textContent = ago(t);
    }
    renderConsentLeft();
  }

  // ---- tabs ------------------------------------------------------------------------------------------------

  const TABS = ['sessions', 'activity', 'runs', 'inbox', 'desktop', 'skills', 'setup'];
  function showTab() {
    const wanted = location.hash.slice(1);
    const name = TABS.includes(wanted) ? wanted : document.body.dataset.defaultTab || 'sessions';
    for (const panel of document.querySelectorAll('[data-panel]')) {
      /** @type {HTMLElement} */ (panel).hidden = panel.getAttribute('data-panel') !== name;
    }
    for (const link of document.querySelectorAll('[data-tab]')) {
      link.classList.toggle('active', link.getAttribute('data-tab') === name);
    }
    desktopLoop();
    if (name === 'runs') runsTab.show();
  }
  window.addEventListener('hashchange', showTab);

  // ---- state: pages, questions, the agent ---------------------------------------------------------------------

  /** @type {{pages: any[], questions: any[], agent: any, agents: any[], desktop?: any}} */
  let state = { pages: [], questions: [], agent: { seen: false }, agents: [] };

  /** @param {number} n @param {string} word */
  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');

  /** @param {any} next */
  function applyState(next) {
    state = next;
    renderPages();
    renderQuestions();
    $('no-agent').hidden = !!state.agent.seen;
    $('fact-agent').textContent = state.agent.seen ? 'seen, ' + plural(state.agent.toolCalls, 'tool call') : 'none yet';
    renderAgents();
    $('fact-pages').textContent = String(state.pages.length);
    renderDesktop();
  }

  /** @param {HTMLElement} cell @param {string} label @param {() => Promise<any>} run */
  function actionButton(cell, label, run) {
    const b = el('button', { type: 'button', class: 'small', 'data-action': label.toLowerCase() }, label);
    b.addEventListener('click', async () => {
      b.setAttribute('disabled', '');
      try { await run(); } catch (e) { cell.append(el('span', { class: 'error' }, String(/** @type {any} */ (e).message || e))); }
      b.removeAttribute('disabled');
    });
    cell.append(b);
  }

  /** @param {Element} node @param {string} text */
  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  /** Rows are updated in place (keyed by pageId), so a button is never swapped out under the pointer. */
  /** @type {Map<string, HTMLElement>} */
  const rows = new Map();

  /** @param {any} p */
  function pageRow(p) {
    const tr = el('tr', { 'data-page': p.pageId });
    const page = el('td');
    page.append(el('div', { class: 'title' }), el('div', { class: 'url mono' }), el('div', { class: 'tools' }));
    const st = el('td');
    st.append(el('span', { class: 'state' }));
    tr.append(el('td', { class: 'mono' }, p.pageId), page, st, el('td', { class: 'attach' }), el('td', { class: 'channel' }),
      el('td', { class: 'ago' }), el('td', { class: 'actions' }));
    return tr;
  }

  /** @param {HTMLElement} tr @param {any} p */
  function updateRow(tr, p) {
    const isLive = String(p.state).startsWith('live');
    const cls = (p.parent ? 'frame' : 'host') + (isLive ? ' live' : ' away');
    if (tr.className !== cls) tr.className = cls;
    setText(/** @type {Element} */ (tr.querySelector('.title')), p.title || '(untitled)');
    setText(/** @type {Element} */ (tr.querySelector('.url')), p.url || '');
    // the tools the page registered itself (WebMCP): their names are the page's words, shown as text only
    const tools = Array.isArray(p.tools) ? p.tools : [];
    setText(/** @type {Element} */ (tr.querySelector('.tools')), tools.length ? plural(tools.length, 'page tool') + ': ' + tools.join(', ') : '');
    setText(/** @type {Element} */ (tr.querySelector('.state')), p.state + (p.crossOrigin ? ' · cross-origin' : ''));
    setText(/** @type {Element} */ (tr.querySelector('.attach')), p.attach || '');
    setText(/** @type {Element} */ (tr.querySelector('.channel')), p.channel || '—');
    const seen = /** @type {HTMLElement} */ (tr.querySelector('.ago'));
    seen.setAttribute('data-time', String(p.lastSeen / 1000));
    setText(seen, ago(p.lastSeen / 1000));
    const wanted = isLive ? (p.crossOrigin ? '' : 'highlight') : p.parent ? '' : 'forget';
    const actions = /** @type {HTMLElement} */ (tr.querySelector('.actions'));
    if (actions.dataset.shows !== wanted) {
      actions.dataset.shows = wanted;
      actions.replaceChildren();
      if (wanted === 'highlight') actionButton(actions, 'Highlight', () => post('/cockpit/highlight', { pageId: p.pageId }));
      if (wanted === 'forget') actionButton(actions, 'Forget', () => post('/cockpit/forget', { pageId: p.pageId }));
    }
  }

  function renderPages() {
    const body = $('pages');
    for (const node of [...body.children]) if (!rows.has(node.getAttribute('data-page') || '')) node.remove(); // server-rendered
    const present = new Set(state.pages.map((p) => p.pageId));
    for (const [id, tr] of rows) if (!present.has(id)) { tr.remove(); rows.delete(id); }
    state.pages.forEach((p, i) => {
      let tr = rows.get(p.pageId);
      if (!tr) { tr = pageRow(p); rows.set(p.pageId, tr); }
      updateRow(tr, p);
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null);
    });
    $('pages-table').hidden = state.pages.length === 0;
    $('no-pages').hidden = state.pages.length > 0;
    const tabs = state.pages.filter((p) => !p.parent).length, frames = state.pages.length - tabs;
    setText($('count-pages'), tabs + ' · ' + frames);
    setText($('pages-count'), plural(tabs, 'tab') + ' and ' + plural(frames, 'frame') + ' running the client. ' +
      'Highlight flashes a page so you can find its tab; Forget drops a disconnected page before its pageId expires.');

    const select = /** @type {HTMLSelectElement} */ ($('message-page'));
    const options = state.pages.filter((p) => !p.parent).map((p) => [p.pageId, p.pageId + ' — ' + (p.title || p.url || '(untitled)')]);
    const key = JSON.stringify(options);
    if (select.dataset.key === key) return; // untouched, so an open dropdown stays open
    select.dataset.key = key;
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '' }, 'no page in particular'), ...options.map(([v, t]) => el('option', { value: v }, t)));
    select.value = options.some(([v]) => v === chosen) ? chosen : '';
  }

  /** Who called this bridge: client name and version, protocol era, calls, last call, the tabs it acts in. */
  function renderAgents() {
    const agents = state.agents || [];
    const key = JSON.stringify(agents.map((a) => [a.name, a.version, a.era, a.calls, a.lastTool, a.holds]));
    const body = $('agents');
    $('agents-table').hidden = agents.length === 0;
    $('no-agents').hidden = agents.length > 0;
    if (body.dataset.key === key) return;
    body.dataset.key = key;
    body.replaceChildren(...agents.map((a) => {
      const tr = el('tr');
      const last = el('td');
      last.append(el('span', { class: 'ago', 'data-time': String(a.lastCall) }, ago(a.lastCall)), ' · ' + (a.lastTool || ''));
      // the tabs it holds a lease on now: another agent acting there waits, then is told [page_busy]
      tr.append(el('td', {}, a.name + (a.version ? ' ' + a.version : '')), el('td', { class: 'mono' }, a.era),
        el('td', {}, String(a.calls)), last, el('td', { class: 'mono holds' }, (a.holds || []).join(', ')));
      return tr;
    }));
  }

  /** @type {Map<string, HTMLElement>} */
  const cards = new Map();

  function renderQuestions() {
    const box = $('question-cards');
    for (const node of box.querySelectorAll('[data-question]')) {
      if (!cards.has(node.getAttribute('data-question') || '')) node.remove(); // the server-rendered ones
    }
    const open = new Set(state.questions.map((q) => q.questionId));
    for (const [id, card] of cards) if (!open.has(id)) { card.remove(); cards.delete(id); }
    for (const q of state.questions) {
      if (!cards.has(q.questionId)) { const c = questionCard(q); cards.set(q.questionId, c); box.append(c); }
      setText(/** @type {Element} */ (/** @type {HTMLElement} */ (cards.get(q.questionId)).querySelector('.who')), whoText(q));
    }
    $('questions').hidden = cards.size === 0;
    const count = $('count-questions');
    count.hidden = cards.size === 0;
    count.textContent = String(cards.size);
  }

  /** Who asks, on which page, and whether the agent still waits (a ticketed question's answer goes to its inbox).
   * @param {any} q */
  function whoText(q) {
    const who = q.asker === 'page' ? 'A page asks' : q.kind === 'consent' ? 'Agent wants to act' : 'Agent asks';
    const waiting = q.asker === 'page' ? '' : q.ticketed ? ' · the agent moved on: your answer goes to its inbox' : ' · the agent is waiting';
    return who + ' · ' + q.pageId + waiting;
  }

  /** @param {any} q */
  function questionCard(q) {
    const card = el('article', { class: 'card question ' + q.kind, 'data-question': q.questionId });
    card.append(el('div', { class: 'who' }, whoText(q)),
      el('div', { class: 'text' }, q.text));
    if (q.detail) card.append(el('pre', { class: 'detail' }, q.detail));
    const row = el('div', { class: 'row' });
    const error = el('span', { class: 'error' });
    const send = async (/** @type {any} */ answer) => {
      for (const b of card.querySelectorAll('button')) b.setAttribute('disabled', '');
      try {
        await post('/cockpit/answer', { questionId: q.questionId, answer });
        card.remove();
        cards.delete(q.questionId);
        renderQuestions();
      } catch (e) {
        error.textContent = String(/** @type {any} */ (e).message || e);
        for (const b of card.querySelectorAll('button')) b.removeAttribute('disabled');
      }
    };
    if (q.kind === 'confirm') {
      for (const [label, value] of /** @type {Array<[string, boolean]>} */ ([['Yes', true], ['No', false]])) {
        const b = el('button', { type: 'button', class: value ? 'primary' : '', 'data-answer': String(value) }, label);
        b.addEventListener('click', () => send(value));
        row.append(b);
      }
    } else if (q.kind === 'choice' || q.kind === 'consent') {
      q.choices.forEach((/** @type {string} */ c, /** @type {number} */ i) => {
        const cls = q.kind === 'consent' ? (c === 'Deny' ? 'danger' : i === 0 ? 'primary' : '') : i === 0 ? 'primary' : '';
        const b = el('button', { type: 'button', class: cls, 'data-answer': c }, c);
        b.addEventListener('click', () => send(c));
        row.append(b);
      });
    } else if (q.kind === 'text') {
      const input = /** @type {HTMLTextAreaElement} */ (el('textarea', { rows: '2', 'aria-label': 'Your answer', maxlength: '8000' }));
      card.append(input);
      const b = el('button', { type: 'button', class: 'primary', 'data-answer': 'send' }, 'Send');
      b.addEventListener('click', () => send(input.value));
      row.append(b);
    } else {
      row.append(el('span', { class: 'muted' }, 'Pick the element in the page itself.'));
    }
    const show = el('button', { type: 'button', class: 'small ghost', 'data-action': 'highlight' }, 'Show me the page');
    show.addEventListener('click', () => post('/cockpit/highlight', { pageId: q.pageId }).catch((e) => { error.textContent = String(e.message || e); }));
    row.append(show, error);
    card.append(row);
    return card;
  }

  // ---- the desktop tab (cockpit/static/desktop.js) ------------------------------------------------------------

  const desktop = cockpitDesktop({ $, post, setText, state: () => state });
  const desktopLoop = desktop.loop, renderDesktop = desktop.render, renderConsentLeft = desktop.renderConsentLeft;

  // ---- the runs tab (cockpit/static/runs.js) -----------------------------------------------------------------

  const runsTab = cockpitRuns({ $, post, el, setText, ago });

  // ---- the skills & memory tab (cockpit/static/skills.js) ----------------------------------------------------

  cockpitSkills({ $, post, el });

  // ---- live activity -----------------------------------------------------------------------------------------

  const MAX_ROWS = 1000;
  const tools = new Set();

  /** @param {any} v */
  function compact(v) {
    if (v == null) return '';
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return text.length > 180 ? text.slice(0, 179) + '…' : text;
  }

  /** @param {any} r */
  function describe(r) {
    if (r.kind === 'tool') {
      return { what: r.tool, details: r.outcome === 'error' && r.message ? r.message : compact(r.args),
        outcome: r.outcome === 'ok' ? 'ok' : r.code || 'error' };
    }
    if (r.kind === 'inbox') return { what: r.item, details: r.text, outcome: 'from ' + (r.from || 'page') };
    if (r.kind === 'consent') return { what: 'consent: ' + r.action, details: r.origin, outcome: r.decision + (r.via ? ' via ' + r.via : '') };
    if (r.kind === 'question') return { what: 'asked (' + r.question + ')', details: r.text, outcome: 'waiting' };
    if (r.kind === 'cockpit') {
      return { what: r.action, details: [r.display, r.minutes ? r.minutes + ' min' : ''].filter(Boolean).join(' · '),
        outcome: 'from the cockpit' };
    }
    if (r.kind === 'agent') return { what: 'agent', details: r.event, outcome: '' };
    if (r.kind === 'run') {  // the bridge's own agent: each run's start and end, in words
      if (r.action === 'start') return { what: 'run ' + r.run + ' started', details: r.task + (r.model ? ' (model ' + r.model + ')' : ''), outcome: 'running' };
      if (r.action === 'end') return { what: 'run ' + r.run + ' ended ' + r.state, details: r.summary || '', outcome: r.state };
      return { what: 'run ' + r.run + ': ' + r.action, details: r.task || '', outcome: r.action === 'cancel' ? 'from the cockpit' : '' };
    }
    return { what: r.kind, details: compact(r), outcome: '' };
  }

  /** @param {HTMLElement} row */
  function matches(row) {
    const kind = /** @type {HTMLSelectElement} */ ($('f-kind')).value;
    const tool = /** @type {HTMLSelectElement} */ ($('f-tool')).value;
    const page = /** @type {HTMLInputElement} */ ($('f-page')).value.trim();
    const errorsOnly = /** @type {HTMLInputElement} */ ($('f-errors')).checked;
    const d = row.dataset;
    if (kind === 'tool' && d.kind !== 'tool') return false;
    if (kind === 'human' && d.kind === 'tool') return false;
    if (tool && d.tool !== tool) return false;
    if (page && !(d.page || '').includes(page)) return false;
    if (errorsOnly && d.outcome !== 'error') return false;
    return true;
  }

  function applyFilters() {
    for (const row of $('feed').children) /** @type {HTMLElement} */ (row).hidden = !matches(/** @type {HTMLElement} */ (row));
  }

  /** @param {any} r */
  function addRecord(r) {
    const { what, details, outcome } = describe(r);
    const tr = el('tr', { 'data-kind': r.kind, 'data-tool': r.tool || '', 'data-page': r.pageId || '',
      'data-outcome': r.outcome || '', 'data-run': r.run || '',
      class: 'k-' + r.kind + (r.outcome === 'error' || (r.kind === 'run' && ['failed', 'blocked'].includes(r.state)) ? ' failed' : '') });
    const time = new Date(r.t * 1000).toLocaleTimeString([], { hour12: false });
    const detailCell = el('td', { class: 'details mono', title: r.kind === 'tool' ? JSON.stringify(r.args || {}) : String(details || '') }, details || '');
    const kindCell = el('td');
    kindCell.append(el('span', { class: 'kind' }, r.kind));
    tr.append(el('td', { class: 'mono' }, time), kindCell, el('td', { class: 'what' }, what || ''),
      el('td', { class: 'mono' }, r.pageId || ''), detailCell, el('td', { class: 'outcome' }, outcome),
      el('td', { class: 'num' }, r.ms != null ? String(r.ms) : ''));
    tr.hidden = !matches(tr);
    const feed = $('feed');
    feed.prepend(tr);
    while (feed.children.length > MAX_ROWS) feed.lastElementChild && feed.lastElementChild.remove();
    $('feed-table').hidden = false;
    $('no-activity').hidden = true;
    if (r.tool && !tools.has(r.tool)) {
      tools.add(r.tool);
      const select = $('f-tool');
      const options = [...tools].sort().map((t) => el('option', { value: t }, t));
      const chosen = /** @type {HTMLSelectElement} */ (select).value;
      select.replaceChildren(el('option', { value: '' }, 'any'), ...options);
      /** @type {HTMLSelectElement} */ (select).value = chosen;
    }
    if (r.kind === 'inbox') addInboxItem(r);
  }

  /** @param {any} r */
  function addInboxItem(r) {
    // `from` is set by the bridge: 'human' (this cockpit), 'page' (anything a page sent: data, not the human's word)
    const from = r.from === 'human' || r.from === 'bridge' ? r.from : 'page';
    const li = el('li', { class: 'inbox-item ' + r.item + ' from-' + from, 'data-item': String(r.itemId), 'data-from': from });
    li.append(el('span', { class: 'kind' }, r.item), el('span', { class: 'from' }, from === 'page' ? 'from page' : 'from ' + from),
      el('span', { class: 'text' }, r.text || ''),
      el('span', { class: 'muted' }, (r.pageId ? r.pageId + ' · ' : '') + ' · '),
      el('span', { class: 'muted ago', 'data-time': String(r.t) }, ago(r.t)));
    const list = $('inbox-list');
    list.prepend(li);
    while (list.children.length > 100) list.lastElementChild && list.lastElementChild.remove();
    $('no-inbox').hidden = true;
  }

  for (const id of ['f-kind', 'f-tool', 'f-page', 'f-errors']) $(id).addEventListener('input', applyFilters);
  $('filters').addEventListener('submit', (e) => e.preventDefault());

  // ---- the stream, and telling 'bridge away' from 'bridge restarted' ---------------------------------------------

  /** @param {string} text @param {string} kind */
  function setStatus(text, kind) {
    const s = $('status');
    s.textContent = text;
    s.dataset.state = kind;
  }

  function connect() {
    const source = new EventSource('/cockpit/events');
    source.addEventListener('open', () => setStatus('bridge live', 'live'));
    source.addEventListener('state', (e) => applyState(JSON.parse(/** @type {MessageEvent} */ (e).data)));
    source.addEventListener('audit', (e) => addRecord(JSON.parse(/** @type {MessageEvent} */ (e).data)));
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) { setStatus('reconnecting…', 'away'); return; }
      source.close();
      setStatus('bridge unreachable', 'away');
      setTimeout(probe, 2000);
    });
  }

  async function probe() {
    try {
      const res = await fetch('/cockpit/ping', { credentials: 'same-origin' });
      if (res.status === 403) { location.reload(); return; } // the bridge restarted: a new cockpit key
      if (res.ok) { connect(); return; }
    } catch (e) { /* still away */ }
    setTimeout(probe, 2000);
  }

  // ---- composer ---------------------------------------------------------------------------------------------------

  $('composer').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = /** @type {HTMLTextAreaElement} */ ($('message'));
    const page = /** @type {HTMLSelectElement} */ ($('message-page')).value;
    const note = $('sent');
    if (!text.value.trim()) return;
    try {
      const out = await post('/cockpit/message', page ? { text: text.value, pageId: page } : { text: text.value });
      text.value = '';
      note.textContent = 'Sent (inbox item ' + out.id + ').';
      note.className = 'note ok';
    } catch (err) {
      note.textContent = String(/** @type {any} */ (err).message || err);
      note.className = 'note error';
    }
  });

  // ---- setup: the token on request, copy buttons ----------------------------------------------------------------------

  /** @type {string|null} */
  let token = null;
  let tokenShown = false;
  async function fetchToken() {
    if (token === null) token = (await post('/cockpit/token')).token || '';
    return token;
  }
  const showToken = document.getElementById('show-token');
  if (showToken) {
    showToken.addEventListener('click', async () => {
      const value = await fetchToken();
      tokenShown = !tokenShown;
      for (const span of document.querySelectorAll('[data-token]')) span.textContent = tokenShown ? value : '••••••••';
      showToken.textContent = tokenShown ? 'Hide token' : 'Show token';
    });
  }
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const source = $(button.getAttribute('data-copy') || '');
      const needsToken = source.querySelector('[data-token]') !== null;
      const value = needsToken ? await fetchToken() : '';
      const text = [...source.childNodes].map((n) => (n instanceof HTMLElement && n.hasAttribute('data-token') ? value : n.textContent)).join('');
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = 'Copied';
      } catch (e) {
        button.textContent = 'Copy failed';
      }
      setTimeout(() => { button.textContent = 'Copy'; }, 1500);
    });
  }

  showTab();
  refreshTimes();
  setInterval(refreshTimes, 1000);
  connect();
})();
