// @ts-check
// dbg-bridge page client, part: boot. Shares one IIFE with the other parts (inject/__init__.py).

/** The same-origin ancestor window that runs the host client, or null when this window is the host. */
function findHostWindow() {
  /** @type {Window} */
  let w = window;
  /** @type {Window|null} */
  let host = null;
  while (w !== w.parent) {
    try {
      const p = /** @type {any} */ (w.parent);
      if (p.origin !== window.origin) break;
      if (p.__dbg && p.__dbg.role === 'host') host = p;
      w = p;
    } catch (_) {
      break;
    }
  }
  return host;
}

/** @param {Window|null} w */
function isSameOriginAncestor(w) {
  /** @type {Window} */
  let cur = window;
  while (cur !== cur.parent) {
    cur = cur.parent;
    if (cur === w) return true;
  }
  return false;
}

/**
 * Build the client for this window: a host (talks to the bridge) or a frame agent (talks to its host).
 * @param {{bridge?: string, channel?: string, attach?: string, shard?: string}} [config]
 */
function createDbgLauncher(config) {
  const cfg = config || {};
  const hostWin = findHostWindow();
  const role = hostWin ? 'frame' : 'host';
  /** The commands running here, by requestId: aborted when their call is cancelled or over. @type {Map<string, AbortController>} */
  const running = new Map();

  if (role === 'frame') {
    const ctx = { frameId: '', role: /** @type {'frame'} */ ('frame'), maxResult: 512000 };
    window.addEventListener('message', async (ev) => {
      if (ev.origin !== window.origin || !isEnvelope(ev.data) || !isSameOriginAncestor(/** @type {Window} */ (ev.source))) return;
      const env = ev.data;
      if (env.type === 'dbg_hello') {
        /** @type {Window} */ (ev.source).postMessage({ __dbg: 1, type: 'dbg_ready' }, window.origin);
        return;
      }
      if (env.type === 'dbg_cancel') { const ac = running.get(String(env.requestId)); if (ac) ac.abort(); return; }
      if (env.type !== 'dbg_exec') return;
      ctx.frameId = env._f || '';
      const payload = env.payload || {};
      const ac = new AbortController();
      const rid = String(env.requestId);
      running.set(rid, ac);
      let out;
      try {
        out = await runLocal(String(payload.command), payload.params || {}, Object.assign({}, ctx, { maxResult: Number(payload.params && payload.params.__maxResult) || ctx.maxResult, signal: ac.signal }));
      } finally { running.delete(rid); }
      /** @type {Window} */ (ev.source).postMessage({ __dbg: 1, type: 'dbg_exec_result', payload: out, requestId: env.requestId, _f: env._f }, window.origin);
    });
    /** @type {Window} */ (hostWin).postMessage({ __dbg: 1, type: 'dbg_ready' }, window.origin);
    webmcp.onChange = () => { try { /** @type {Window} */ (hostWin).postMessage({ __dbg: 1, type: 'dbg_tools_changed' }, window.origin); } catch (_) { /* gone */ } };
    watchWebTools();
    recordUp = (step) => /** @type {Window} */ (hostWin).postMessage({ __dbg: 1, type: 'dbg_recorded', payload: step }, window.origin);
    installFrameRecorder();
    recorder.resume();
    return { version: VERSION, role, commands: COMMANDS, get frameId() { return ctx.frameId; }, status: () => ({ state: 'frame', running: running.size }) };
  }

  const client = new BridgeClient((cfg.bridge || BRIDGE).replace(/\/+$/, ''), {
    channel: cfg.channel || option('channel', 'auto'),
    attach: cfg.attach || option('attach', 'script'),
    shard: cfg.shard || option('shard', 'auto'),
    frames: () => router.frameList(),
    onExec: (frame) => { void execFrame(frame); },
    onCancel: (frame) => { const ac = running.get(frame.requestId); if (ac) ac.abort(); },
  });

  /** @param {ExecFrame} frame */
  async function execFrame(frame) {
    const ac = new AbortController();
    running.set(frame.requestId, ac);
    const ctx = { frameId: frame.frameId, role: /** @type {'host'} */ ('host'), maxResult: client.maxResult, signal: ac.signal };
    let out;
    try {
      if (frame.frameId === 'host') out = await runLocal(frame.command, frame.params, ctx);
      else {
        const params = Object.assign({}, frame.params, { __maxResult: client.maxResult });
        out = await router.exec(frame.frameId, frame.command, params, frame.timeout * 1000, ac.signal);
        if (frame.command === 'screenshot' && out.ok && out.result && out.result.frameBox) {
          try { out = { ok: true, result: await capture(out.result.frameBox, client.maxResult) }; } catch (e) { out = { ok: false, error: toErrorInfo(e) }; }
        }
      }
    } finally { running.delete(frame.requestId); }
    if (ac.signal.aborted) return; // cancelled or timed out: the bridge no longer waits for this result
    client.sendResult(/** @type {ResultMsg} */ (Object.assign({ type: 'result', requestId: frame.requestId }, out)), frame.timeout * 1000);
  }

  window.addEventListener('message', (ev) => router.onMessage(ev));
  sendUp = (msg) => client.sendEvent(msg); // acknowledged and retried: a human's answer survives a network blip
  recordUp = (step) => client.sendEvent({ type: 'event', kind: 'recorded', text: step.action, data: step });
  installHostRecorder();
  // Hotkeys for the human: Alt+Shift+P toggles the element picker, Alt+Shift+M writes to the agent, Alt+Shift+R
  // records a skill.
  window.addEventListener('keydown', (ev) => {
    if (!ev.altKey || !ev.shiftKey) return;
    if (ev.code === 'KeyP') { ev.preventDefault(); if (human.picking) human.stopPicker(); else human.startPicker(null); }
    else if (ev.code === 'KeyM') { ev.preventDefault(); human.compose(); }
    else if (ev.code === 'KeyR') { ev.preventDefault(); recorder.offer(); }
  }, true);
  router.onChange = () => {
    if (client.state === 'connected') client.send({ type: 'frames', frames: router.frameList(), url: location.href, title: document.title, complete: document.readyState !== 'loading' });
    webmcp.changed(); // a frame that came or went takes its tools with it
  };
  // The tab's WebMCP tools (every same-origin frame's) go up whenever they change, and again on every new channel.
  let toolsSent = '', everSent = false;
  webmcp.onChange = () => {
    if (client.state !== 'connected') return;
    void webmcp.catalog().then((cat) => {
      const text = JSON.stringify(cat.tools) + '|' + cat.total;
      if (text === toolsSent || (!everSent && !cat.total)) return; // nothing new, or never any tools
      toolsSent = text;
      everSent = true;
      client.send({ type: 'tools', tools: cat.tools, total: cat.total });
    });
  };
  watchWebTools();
  watchDevServer((msg) => { if (client.state === 'connected') client.send(/** @type {any} */ (msg)); }); // else sent on connect
  window.addEventListener('dbg:status', (ev) => {
    const detail = /** @type {CustomEvent} */ (ev).detail;
    if (detail.state === 'connected' && router.onChange) { toolsSent = ''; router.onChange(); }
    const info = detail.state === 'connected' ? devInfo() : null; // a hook found before the channel was up
    if (info) client.send({ type: 'dev', dev: info });
    if (EXT_NONCE) ext.post({ type: 'status', state: detail.state, channel: detail.channel || '', pageId: client.pageId ? client.pageId + '/host' : null });
  });
  ext.install();
  // The Navigation API (Firefox, Chromium) says when a navigation to another document starts, for either channel.
  const navApi = /** @type {any} */ (window).navigation;
  let leaveTurn = 0; // the navigation away this document announced last
  let stayed = () => {}; // says it stayed after all, once per announcement
  if (navApi && typeof navApi.addEventListener === 'function') {
    navApi.addEventListener('navigate', (/** @type {any} */ ev) => {
      if (ev.destination.sameDocument) return;
      client.leavingTo = String(ev.destination.url || ''); // if it never comes back, the bridge says where it went
      client.leaving();
      // The bridge holds new calls for the next document meanwhile (a slow server keeps this one up and answering);
      // this document says so when it stays after all: an app intercepted the navigation, or none came (204, download)
      if (ev.downloadRequest != null) return; // <a download>: the document stays
      if (client.state === 'connected') client.send({ type: 'leaving', to: client.leavingTo.slice(0, 4000), stayed: false });
      const gen = client.gen, turn = ++leaveTurn;
      stayed = () => {
        if (turn !== leaveTurn || client.gen !== gen || client.state !== 'connected') return;
        leaveTurn++;
        client.send({ type: 'leaving', stayed: true });
      };
      setTimeout(stayed, LEAVE_GRACE_MS);
    });
    // an intercepted navigation settles in this document (a cross-document one never does here)
    navApi.addEventListener('navigatesuccess', () => stayed());
    navApi.addEventListener('navigateerror', () => stayed());
  }
  window.addEventListener('pagehide', () => client.bye());
  window.addEventListener('pageshow', (ev) => { if (ev.persisted) void client.connect(); });

  const start = () => { router.scan(); void client.connect(); };
  if (document.readyState === 'loading') {
    // Register at once (so the tab is listed early), and rescan frames when the DOM is complete.
    void client.connect();
    document.addEventListener('DOMContentLoaded', () => router.scan());
  } else start();
  recorder.resume(); // a recording this tab had goes on (its steps wait in the outbox until registered)

  return {
    version: VERSION,
    role,
    commands: COMMANDS,
    get pageId() { return client.pageId ? client.pageId + '/host' : null; },
    status: () => ({ state: client.state, channel: client.channel, pageId: client.pageId ? client.pageId + '/host' : null, frames: router.frameList(), running: running.size,
      unacked: Array.from(client.outbox.values(), (e) => ({ key: e.key, tries: e.tries })) }),
    connect: () => client.connect(),
    disconnect: () => client.stop(),
    pick: () => human.startPicker(null),
    message: () => human.compose(),
    record: () => recorder.offer(),
  };
}

/** Look for the page's WebMCP context now, as the document loads, and every second after: an app may set one up (or
 * replace it) at any time, and nothing announces that. */
function watchWebTools() {
  webmcp.watch();
  document.addEventListener('DOMContentLoaded', () => webmcp.watch());
  window.addEventListener('load', () => webmcp.watch());
  setInterval(() => webmcp.watch(), 1000);
}

consoleLog.install();
net.install();
vitals.install();
/** @type {any} */ (window).createDbgLauncher = createDbgLauncher;
/** @type {any} */ (window).__dbg = createDbgLauncher();
