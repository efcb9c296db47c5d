// @ts-check
// dbg-bridge page client, part: the act command — a batch of actions, each checked for actionability, sent as
// synthetic events or real input (the extension's debugger, or the bridge's desktop: X input), its effect measured,
// and one answer: what each did, the lines that changed, the requests it started. Shares one IIFE (inject/__init__.py).

/** Acts waiting for the bridge to send real input on its desktop (token -> state), one at a time. @type {Map<string, any>} */
const pendingActs = new Map();
/** At most how long an act waits for the requests it started to settle. */
const REQUEST_SETTLE_MS = 3000;
/** How long nothing may be in flight before an act's requests count as settled: long enough for the request an
 * answer's handler chains (a refetch after a save starts within a frame or two), short enough that a click whose
 * fetch takes 10 ms answers in a fraction of a second. page_wait networkIdle waits for NETWORK_IDLE_MS. */
const ACT_QUIET_MS = 150;
/** How long an act resumed after desktop input waits for that input's effect to show in the page. */
const DESKTOP_EFFECT_MS = 1500;
const ACT_TREE = { depth: 64, interactive: false, maxChars: 400000, boxes: false };

/** One action as the act runs it: the call's `trusted` and `force` where the action has none, and its upload's files.
 * @typedef {ActionParams & {trusted: 'auto' | true | false, force: boolean, uploads?: Array<Upload> | null}} ActAction */

/** What real input this page can have: the extension (top page, attached by it) and/or the bridge's desktop. @param {CommandParams['act']} params */
function realRoutes(params) {
  const out = [];
  if (EXT_NONCE && window === window.top) out.push('extension');
  if (params.desktop) out.push('desktop');
  return out;
}

/** Whether an action's wanted state already holds, so no change is the right outcome. @param {Element} el @param {Record<string, any>} a */
function alreadyHeld(el, a) {
  const e = /** @type {any} */ (el);
  switch (String(a.action)) {
    case 'fill': return heldText(el) === String(a.value == null ? '' : a.value);
    case 'check': return !!e.checked;
    case 'uncheck': return !e.checked;
    case 'focus': return deepActiveElement() === el;
    case 'select': return el.tagName === 'SELECT' && (e.value === String(a.value) || ((e.selectedOptions && e.selectedOptions[0] && e.selectedOptions[0].textContent) || '').trim() === String(a.value));
    default: return false;
  }
}

/** Run an act: a dry run, the rest of one that waited for desktop input (resume), or a new batch. The bridge sends
 * every param with its default (bridge/pages/commands.py ActWire): nothing is re-defaulted here.
 * @param {CommandParams['act']} params @param {CommandContext} ctx */
async function runAct(params, ctx) {
  if (params.resume) {
    const state = pendingActs.get(String(params.resume));
    pendingActs.delete(String(params.resume));
    if (!state) throw new DbgError('stale_act', 'That act is no longer waiting in the page (it was reloaded or another act ran). Run page_act again.');
    // real input reaches the page on the browser's own time: wait (bounded) for its effect to show
    const until = Date.now() + DESKTOP_EFFECT_MS;
    const kind = String(state.a.action);
    const peek = () => Object.assign(state.watch.peek(), kind === 'drag' ? { moved: dragPrint(state.el, null) !== state.print } : {});
    while (!params.failed && !hadEffect(peek(), kind) && Date.now() < until) await nextFrame();
    await settleBounded();
    const eff = Object.assign(state.watch.stop(), kind === 'drag' ? { moved: dragPrint(state.el, null) !== state.print } : {});
    record(state, state.el, state.a, {}, eff, params.failed ? 'synthetic' : 'desktop', params.failed ? String(params.failed) : '',
      handlerThrew(state.errorsFrom));
    state.index++;
    return steps(state, params, ctx);
  }
  const batch = /** @type {ActionParams[]} */ (params.actions && params.actions.length ? params.actions : [params]);
  const actions = batch.map((a, i) => /** @type {ActAction} */ (Object.assign({}, a, {
    trusted: a.trusted != null ? a.trusted : params.trusted,
    force: a.force != null ? a.force : params.force,
    uploads: params.uploads ? params.uploads[i] : undefined, // the files the bridge read for it
  })));
  if (params.dryRun) return { submits: actions.map(submitsWhat).filter(Boolean) };
  const routes = realRoutes(params);
  if (actions.some((a) => a.trusted === true) && !routes.length) requireTrustedInput();
  const timeoutMs = params.checkTimeout * 1000;
  const state = { actions, index: 0, done: /** @type {any[]} */ ([]), before: snapshot(document.body || document.documentElement, ACT_TREE).text,
    url: location.href, seq: net.seq, mark: problemsMark(), deadline: Date.now() + timeoutMs, routes, held: /** @type {string[]} */ ([]) };
  return steps(state, params, ctx);
}

/** What an action would submit (for the consent question), or ''. @param {Record<string, any>} a */
function submitsWhat(a) {
  const el = target(a);
  const form = /** @type {any} */ (el).form;
  const kind = String(a.action);
  const submitButton = /^(BUTTON|INPUT)$/.test(el.tagName) && form &&
    /^(submit|image)$/i.test(el.getAttribute('type') || (el.tagName === 'BUTTON' ? 'submit' : ''));
  const enter = kind === 'press' && /(^|\+)Enter$/.test(String(a.key || a.value || 'Enter')) && form && el.tagName === 'INPUT';
  if (((kind === 'click' || kind === 'dblclick') && submitButton) || enter) {
    return refs.of(el) + ' submits ' + (form.getAttribute('action') || location.pathname) + ' (' + (form.getAttribute('method') || 'get') + ')';
  }
  return '';
}

/** Run the actions from state.index on; stop early to hand one to the bridge's desktop. @param {any} state
 * @param {CommandParams['act']} params @param {CommandContext} ctx */
async function steps(state, params, ctx) {
  for (; state.index < state.actions.length; state.index++) {
    const a = state.actions[state.index];
    if (ctx.signal && ctx.signal.aborted) throw new DbgError('cancelled', 'The call was cancelled after ' + state.done.length + ' of ' + state.actions.length + ' actions.');
    const kind = String(a.action);
    let el = target(a);
    if (kind === 'type' || kind === 'fill') el = typingTarget(el);
    if (kind === 'upload') el = fileInput(el);
    if (!a.force) await waitActionable(el, kind, state.deadline, ctx.signal);
    else if (kind !== 'scroll' && typeof (/** @type {HTMLElement} */ (el)).scrollIntoView === 'function' && !aimPoint(el.getBoundingClientRect())) {
      /** @type {HTMLElement} */ (el).scrollIntoView({ block: 'center', inline: 'center' });
    }
    acts.begin(kind, el, a, ctx.frameId);
    const errorsFrom = consoleLog.seq;
    const real = a.trusted === true && TRUSTED_ACTIONS.includes(kind);
    if (a.trusted === true && !TRUSTED_ACTIONS.includes(kind)) {
      throw new DbgError('bad_action', 'trusted: true covers ' + TRUSTED_ACTIONS.join(', ') + "; '" + kind + "' is only synthesized in the page: drop trusted for it.");
    }
    // keys go where a person's would: the target, or what a click on it focuses (a grid's editor, a hidden input)
    const keys = kind === 'type' || kind === 'press' ? await keysTarget(el, kind) : null;
    const on = keys ? keys.to : el;
    // a real drag: the desktop's when it is there (HTML5 drags too), else the extension's (pointer drags)
    const deskDrag = kind === 'drag' && state.routes.includes('desktop');
    if (real && (!state.routes.includes('extension') || deskDrag)) return handOver(state, on, a);
    const print = kind === 'drag' ? dragPrint(el, null) : '';
    const watch = watchEffect(on);
    const extra = real ? (await trustedAct(on, a, kind), {}) : await act(on, a);
    await settleBounded();
    let eff = watch.stop();
    if (kind === 'drag') eff.moved = dragPrint(el, null) !== print;
    state.lastAt = Math.max(state.lastAt || 0, eff.lastAt);
    state.lastOn = on;
    let input = real ? 'extension' : 'synthetic';
    // a handler that threw was reached: real input would only run it again
    const threw = handlerThrew(errorsFrom);
    if (!threw && !hadEffect(eff, kind) && !alreadyHeld(el, a) && a.trusted === 'auto' && TRUSTED_ACTIONS.includes(kind)) {
      if (state.routes.includes('extension') && !deskDrag && !(kind === 'drag' && dragSource(pointerTarget(el)))) {
        const again = watchEffect(on);
        await trustedAct(on, a, kind);
        await settleBounded();
        eff = again.stop();
        if (kind === 'drag') eff.moved = dragPrint(el, null) !== print;
        input = 'extension';
      } else if (state.routes.includes('desktop')) {
        return handOver(state, on, a);
      }
    }
    if (keys && keys.clicked) extra.clicked = 'first, to select it as a person does';
    const took = deepActiveElement();
    if (keys && took && took !== el && isTextField(took)) extra.into = refs.of(took);
    record(state, el, a, extra, eff, input, '', threw, keys && isTextField(keys.to) ? keys.to : took && took !== el && isTextField(took) ? took : null);
  }
  return finish(state, params);
}

/** The first error thrown (uncaught, a rejection) or logged as an Error since console seq `from` (its text), or ''
 * when none was. @param {number} from */
function handlerThrew(from) {
  const e = consoleLog.entries.find((x) => x.seq > from && x.thrown);
  return e ? e.text : '';
}

/** Hand one action to the bridge for real input on its desktop: focus what keys go to, aim the pointer, and watch
 * for the effect until the bridge resumes the act. @param {any} state @param {Element} el @param {Record<string, any>} a */
function handOver(state, el, a) {
  const kind = String(a.action);
  const h = /** @type {HTMLElement} */ (el);
  if (kind === 'press' || kind === 'type' || kind === 'fill') {
    if (deepActiveElement() !== el) h.focus();
    if (kind === 'type' && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA')) {
      try { const end = String(/** @type {HTMLInputElement} */ (el).value || '').length; /** @type {HTMLInputElement} */ (el).setSelectionRange(end, end); } catch (_) { /* not selectable */ }
    }
  }
  const r = el.getBoundingClientRect();
  const p = aimPoint(r) || { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  const at = window === window.top ? p : toHostBox({ x: p.x, y: p.y, width: 0.01, height: 0.01 });
  const token = Math.random().toString(36).slice(2, 10);
  for (const [k, old] of pendingActs) { old.watch.stop(); pendingActs.delete(k); }
  state.el = el;
  state.a = a;
  state.print = kind === 'drag' ? dragPrint(el, null) : '';
  state.errorsFrom = consoleLog.seq;
  state.watch = watchEffect(el);
  pendingActs.set(token, state);
  return {
    pending: { token, action: kind, x: at.x, y: at.y, to: kind === 'drag' ? dragEndOnScreen(el, a, p) : null, key: a.key || (kind === 'press' ? a.value : null) || (kind === 'press' ? 'Enter' : null),
      text: kind === 'type' || kind === 'fill' ? String(a.value == null ? '' : a.value) : null, count: kind === 'dblclick' ? 2 : 1 },
    done: state.done,
  };
}

/** One done line: the action, its target, what input it took, what the field holds, and "none" when nothing changed.
 * @param {any} state @param {Element} el @param {Record<string, any>} a @param {Record<string, any>} extra
 * @param {Effect} eff @param {string} input @param {string} failed why real input could not be sent ('' when it was)
 * @param {string} [threw] the error a handler threw meanwhile ('' when none did)
 * @param {Element|null} [field] the field the keys went to, when not el */
function record(state, el, a, extra, eff, input, failed, threw, field) {
  const kind = String(a.action);
  const ref = refs.of(el);
  /** @type {Record<string, any>} */
  const line = { action: kind, ref };
  if (input !== 'synthetic') line.input = input;
  if (input !== 'synthetic') line.trusted = true;
  if (kind === 'type' || kind === 'fill') { line.value = clip(heldText(field && field.isConnected ? field : el), 200); state.held.push(ref); }
  Object.assign(line, extra);
  const none = !hadEffect(eff, kind) && !alreadyHeld(el, a);
  if (threw) {
    // the input arrived: what it reached failed, and no other kind of input would help
    if (none) line.effect = 'threw'; // else it changed something, then threw: `threw` says so
    else line.threw = true;
    line.why = 'The ' + kind + ' reached a handler that threw (or logged) an error: ' + clip(threw, 200) + ' — see `errors` in this answer ' +
      '(mapped to the line written) and fix that; real input would run the same handler.';
  } else if (none) {
    line.effect = 'none';
    const tried = input !== 'synthetic' || (a.trusted === 'auto' && state.routes.length > 0);
    line.why = (failed ? 'Real input on the desktop could not be sent: ' + failed + '. ' : '') + noEffectHint(kind, el, tried);
    if (!state.routes.length && TRUSTED_ACTIONS.includes(kind)) {
      line.why += ' Synthetic input is all this page has: load the dbg-bridge extension (plugins/extension), or open the page in a browser on the bridge\'s desktop (desktop_open_url), for real input.';
    }
  } else if (alreadyHeld(el, a) && !hadEffect(eff, kind)) {
    line.why = 'already so';
  }
  state.done.push(line);
}

/** The answer: the done lines, what changed (without the lines of fields the done lines report), requests started
 * and waited for, effect none when nothing at all happened. @param {any} state @param {CommandParams['act']} params */
async function finish(state, params) {
  const body = document.body || document.documentElement;
  /** @type {Record<string, any>} */
  const out = { done: state.done };
  const started = net.seq - state.seq;
  if (started > 0) {
    const t0 = Date.now();
    const cap = Math.min(REQUEST_SETTLE_MS, Math.max(0, state.deadline - Date.now()));
    while (net.idleFor() < ACT_QUIET_MS && Date.now() - t0 < cap) await new Promise((r) => setTimeout(r, 10));
    await settleBounded();
    const settled = net.inflight === 0;
    out.requests = { started, settled, waitedMs: Date.now() - t0, capMs: REQUEST_SETTLE_MS,
      waitedFor: 'no request in flight for ' + ACT_QUIET_MS + ' ms' };
    if (!settled) out.requests.inflight = net.pending(5);
    state.lastAt = Date.now(); // a response that just came may still be rendering
  }
  // what the acts caused may still be rendering: answer once the DOM is still (nothing to wait for when nothing changed)
  if (state.done.some((/** @type {any} */ d) => d.effect !== 'none')) await renderQuiet(Math.max(0, state.deadline - Date.now()), state.lastAt || 0, state.lastOn || null);
  const after = snapshot(body, ACT_TREE).text;
  const own = state.held.map((/** @type {string} */ r) => '[ref=' + r.replace(/@.*$/, '') + ']');
  out.changed = diffLines(state.before, after).filter((l) => !own.some((/** @type {string} */ r) => l.includes(r)));
  if (location.href !== state.url) out.url = location.href;
  if (state.done.length && state.done.every((/** @type {any} */ d) => d.effect === 'none')) {
    out.effect = 'none';
  }
  acts.end();
  Object.assign(out, problemsSince(state.mark));
  const inputs = new Set(state.done.map((/** @type {any} */ d) => d.input || 'synthetic'));
  if (inputs.has('synthetic')) out.untrusted = 'events were synthesized in the page (isTrusted=false); trusted: true sends real input' + (state.routes.length ? ' (' + state.routes.join(' or ') + ' here)' : ' (none available here: load the extension, or open the page on the bridge\'s desktop)');
  if (inputs.has('extension')) out.trusted = 'real input from the browser through the dbg-bridge extension (chrome.debugger): isTrusted=true';
  if (inputs.has('desktop')) out.trusted = 'real input through the bridge\'s desktop (X input into the browser window): isTrusted=true';
  if (params.snapshot) out.tree = snapshot(body, { depth: 64, interactive: false, maxChars: 12000, boxes: false }).text;
  return out;
}
