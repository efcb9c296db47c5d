// @ts-check
// dbg-bridge page client, part: COMMANDS: name -> async (params, ctx) => result. Shares one IIFE with the other parts (inject/__init__.py).

/** The last whole tree taken with `full`, kept so the bridge can read it in slices. @type {{id: string, text: string}|null} */
let lastFullTree = null;

/** One slice of a whole tree that fits the result cap: `next` is where the following slice starts (null at the end).
 * @param {string} id @param {string} text @param {number} from @param {number} maxResult */
function sliceTree(id, text, from, maxResult) {
  // JSON escaping can double a character (quotes, backslashes): half the cap is always safe
  const size = Math.max(1000, Math.floor((maxResult || 512000) / 2) - 2000);
  const tree = text.slice(from, from + size);
  const next = from + size < text.length ? from + size : null;
  return { snapshotId: id, tree, chars: text.length, from, next };
}

/** Whether a navigation will replace this document: a reload does, a goto does unless only the fragment changes,
 * back/forward as the Navigation API's history entry says (null where it cannot tell: no Navigation API, or an entry
 * of another origin). @param {string} action @param {string} url @returns {boolean|null} */
function leavesDocument(action, url) {
  if (action === 'reload') return true;
  const bare = (/** @type {string} */ u) => u.replace(/#.*$/, '');
  if (action === 'goto') return !(url.includes('#') && bare(url) === bare(location.href));
  const nav = /** @type {any} */ (window).navigation;
  if (!nav || !nav.currentEntry || typeof nav.entries !== 'function') return null;
  const entry = nav.entries()[nav.currentEntry.index + (action === 'back' ? -1 : 1)];
  return entry ? !entry.sameDocument : null;
}

/** Every command, typed by the params and results generated from bridge/pages/commands.py (command_types.js).
 * @type {{[K in CommandName]: (params: CommandParams[K], ctx: CommandContext) => Promise<CommandResults[K]>}} */
const COMMANDS = {
  async ping(_params, ctx) {
    return { pong: true, frameId: ctx.frameId, url: location.href, time: Date.now() };
  },
  async location() {
    return { href: location.href, origin: location.origin, title: document.title, readyState: document.readyState };
  },
  async frames(_params, ctx) {
    if (ctx.role === 'host') return router.frameList();
    return Array.from(document.querySelectorAll('iframe, frame')).map((el) => ({
      src: /** @type {HTMLIFrameElement} */ (el).src, crossOrigin: !sameOrigin(/** @type {HTMLIFrameElement} */ (el)),
    }));
  },
  async eval(params, ctx) {
    const code = String(params.code == null ? '' : params.code);
    let compiled;
    try {
      compiled = compile(code);
    } catch (e) {
      if (e instanceof EvalError || /unsafe-eval|Content Security Policy/i.test(String(/** @type {any} */ (e).message))) {
        throw new DbgError('csp_blocked', "This page's Content-Security-Policy forbids eval ('unsafe-eval' is not " +
          'allowed), so code cannot run here. Named commands (ping, location, frames) still work; in development, ' +
          "add 'unsafe-eval' to script-src to enable page_exec code.");
      }
      throw e;
    }
    // `signal` in the code's scope aborts when the call is cancelled or times out (signal.aborted, 'abort' event).
    let value;
    try {
      value = await compiled.fn.call(window, params.args, ctx.signal || new AbortController().signal);
    } catch (e) {
      throw agentError(e, compiled.expr);
    }
    return toResult(value, ctx.maxResult);
  },
  async snapshot(params, ctx) {
    // a later slice of a whole tree taken with `full` (toFile): the bridge reads it in pieces under the result cap
    if (params.part) {
      if (!lastFullTree || lastFullTree.id !== params.part) {
        throw new DbgError('stale_snapshot', 'Snapshot ' + params.part + ' is no longer kept in the page (a newer whole tree replaced it). Take page_snapshot again.');
      }
      return sliceTree(lastFullTree.id, lastFullTree.text, params.from, ctx.maxResult);
    }
    const root = params.root ? target(REF_PATTERN.test(String(params.root)) ? { ref: params.root } : { selector: params.root })
      : (document.body || document.documentElement);
    const full = params.full;
    const out = snapshot(root, {
      depth: params.depth,
      interactive: params.interactiveOnly,
      maxChars: full ? 0 : params.maxChars,
      boxes: params.boxes,
      detailed: params.detailed,
    });
    refs.snapshots++;
    const snapshotId = 's' + refs.snapshots + '@' + DOC_TAG;
    let tree = out.text;
    if (params.includeFrames && ctx.role === 'host' && /\[frame=f\d+\]/.test(tree)) {
      const lines = [];
      for (const line of tree.split('\n')) {
        lines.push(line);
        const m = /^(\s*)- iframe.*\[frame=(f\d+)\]/.exec(line);
        if (!m) continue;
        const sub = await router.exec(m[2], 'snapshot', Object.assign({}, params, { includeFrames: false, __maxResult: ctx.maxResult }), 5000);
        if (!sub.ok || !sub.result) { lines.push(m[1] + '  - (frame ' + m[2] + ': ' + (sub.error ? sub.error.code : 'no answer') + ')'); continue; }
        let subTree = String(sub.result.tree);
        for (let at = sub.result.next; at != null;) { // a frame's whole tree, read in slices
          const more = await router.exec(m[2], 'snapshot', { part: sub.result.snapshotId, from: at, __maxResult: ctx.maxResult }, 5000);
          if (!more.ok || !more.result) break;
          subTree += more.result.tree;
          at = more.result.next;
        }
        for (const l of subTree.split('\n')) if (l) lines.push(m[1] + '  ' + l.replace(/\[ref=|page_find ref=/g, (r) => r + m[2] + ':'));
      }
      tree = lines.join('\n');
    }
    const head = { snapshotId, url: location.href, title: document.title, elements: out.elements, shown: out.shown, truncated: out.truncated };
    if (!full) return Object.assign(head, { tree });
    lastFullTree = { id: snapshotId, text: tree };
    return Object.assign(head, sliceTree(snapshotId, tree, 0, ctx.maxResult));
  },
  async find(params, ctx) {
    const limit = params.limit;
    const match = textMatcher({ text: params.text, regex: params.regex, exact: params.exact });
    const pool = params.selector ? new Set(deepQueryAll(String(params.selector))) : null;
    const fits = (/** @type {Element} */ el, /** @type {string} */ role) => (!params.role || role === params.role) && (!pool || pool.has(el));
    // the whole text of what a name cannot say (a response body), shared up to the answer's cap
    let budget = Math.max(2000, Math.floor((ctx.maxResult || 512000) / 2) - 4000);
    return withTextCache(() => {
      // one element by ref; with text: the innermost elements whose name or rendered text matches; else every
      // element that fits
      const found = params.ref ? [refs.resolve(String(params.ref))]
        : match ? textMatches(match, fits).filter((el) => !hidden(el))
        : deepElements(document.body || document.documentElement).filter((el) => !SKIP_TAGS.has(el.tagName) && fits(el, roleOf(el)) && !hidden(el));
      const hits = found.slice(0, limit).map((el) => {
        const role = roleOf(el);
        // words inside a sentence or a code line: the line they are in is their context
        const ctx = inlineBox(el) ? lineOf(el) : el.closest('form,dialog,section,article,li,tr,fieldset,nav,header,footer,[role=dialog]');
        const name = (role && nameOf(el, role)) || clip(elementText(el), 100);
        /** @type {FindMatch} */
        const hit = { ref: refs.of(el), role: role || el.tagName.toLowerCase(), name, context: ctx && ctx !== el ? clip(elementText(ctx), inlineBox(el) ? 200 : 80) : '' };
        const whole = keepsSpaces(el) ? rawText(el).replace(INVISIBLE_CHARS, '').replace(/^\s*\n|\s+$/g, '') : elementText(el);
        if (params.ref ? whole && whole !== name : whole.length > 100 && whole !== name) {
          hit.text = whole.slice(0, Math.max(0, budget));
          if (whole.length > budget) hit.cut = whole.length - Math.max(0, budget);
          budget -= hit.text.length;
        }
        return hit;
      });
      return { matches: hits, total: found.length, more: found.length > hits.length };
    });
  },
  async act(params, ctx) {
    try {
      return await runAct(params, ctx);
    } finally {
      if (!pendingActs.size) acts.end(); // (an act waiting for desktop input is still running)
    }
  },
  async console(params) {
    const { since, limit } = params;
    const levels = params.level ? new Set(params.level.split(',')) : null;
    const all = consoleLog.entries.filter((e) => e.seq > since && (!levels || levels.has(e.level)));
    // an error's stack goes to the bridge, which maps it and keeps its top frame (or all of it, with `stack`)
    // (without `stack`, an error's first frames are enough for its top app frame: the answer stays small)
    const page = all.slice(0, limit).map((e) => (params.stack ? e : Object.assign({}, e,
      { stack: e.level === 'error' && e.stack ? e.stack.split('\n').slice(0, 12).join('\n') : undefined })));
    /** @type {ConsoleResult & Record<string, any>} */
    const out = { entries: page, cursor: page.length ? page[page.length - 1].seq : Math.max(since, 0), more: all.length > page.length };
    if (params.errors) { acts.load(); out.acts = acts.journal; }
    if (page.some((e) => e.level === 'error')) out.hot = hotUpdates();
    return out;
  },
  async wait(params, ctx) {
    const timeoutMs = params.timeout * 1000;
    const state = params.state;
    if (params.loadState) return waitLoaded(params.loadState, timeoutMs, ctx.signal);
    if (params.update != null) throw new DbgError('bad_arguments', 'update is waited for in the bridge (a reload ends any wait in the page): call page_wait {update}.');
    if (params.networkIdle) {
      const quiet = NETWORK_IDLE_MS;
      try {
        return await waitFor(() => net.idleFor() >= quiet && { inflight: 0, quietMs: net.idleFor() }, timeoutMs, ctx.signal);
      } catch (err) {
        if (/** @type {any} */ (err).code !== 'wait_timeout') throw err;
        throw new DbgError('wait_timeout', 'The network was not idle (nothing in flight for ' + quiet + ' ms) within ' + timeoutMs / 1000 +
          ' s; in flight now: ' + (net.pending(5).join(', ') || 'nothing (requests kept starting)') + '. page_network shows them.');
      }
    }
    if (params.url) {
      const want = String(params.url);
      return waitFor(() => location.href.includes(want) && location.href, timeoutMs, ctx.signal);
    }
    const textWanted = params.text ? textMatcher({ text: params.text, exact: params.exact }) : null;
    /** @returns {Element|null} */
    const find = () => {
      if (params.ref) {
        try { return refs.resolve(params.ref); } catch (e) {
          if (state === 'hidden' && /** @type {any} */ (e).code === 'stale_ref') return null;
          throw e;
        }
      }
      if (params.selector) return deepQuery(String(params.selector));
      if (textWanted) return textMatches(textWanted).find((el) => !hidden(el)) || null;
      throw new DbgError('bad_arguments', 'Give text, selector, ref or url to wait for.');
    };
    return waitFor(() => {
      const el = find();
      if (state === 'hidden') return !el || hidden(el);
      if (!el || hidden(el)) return false;
      if (state === 'enabled') return !(/** @type {any} */ (el)).disabled && el.getAttribute('aria-disabled') !== 'true' && refs.of(el);
      return refs.of(el);
    }, timeoutMs, ctx.signal);
  },
  async problems(params) {
    return problemsSince({ console: params.console, net: params.net, doc: params.doc || undefined }) || {};
  },
  async maps(params, ctx) {
    return sourceMaps(params.urls, ctx.maxResult);
  },
  async vitals(params) {
    return readVitals(params);
  },
  async navigate(params) {
    const action = params.action;
    const url = params.url ? new URL(String(params.url), location.href).href : '';
    if (action === 'goto' && !url) throw new DbgError('bad_arguments', 'goto needs a url.');
    // Answer first, navigate a moment later: the bridge then waits for this tab to come back under its pageId, as a
    // document other than this one (doc) when the navigation leaves it (crossDocument; null: cannot tell).
    const crossDocument = leavesDocument(action, url);
    setTimeout(() => {
      if (action === 'reload') location.reload();
      else if (action === 'back') history.back();
      else if (action === 'forward') history.forward();
      else location.href = url;
    }, 20);
    // the journal a repro skill is made from: a reload is a goto of this page
    acts.begin(action === 'reload' ? 'goto' : action, null, { url: action === 'reload' ? location.href : url }, 'host');
    acts.end();
    return { from: location.href, action, to: url || null, doc: DOC_ID, crossDocument, mark: problemsMark() };
  },
  async network(params) {
    if (params.id != null) {
      const e = net.entries.find((x) => x.id === Number(params.id));
      if (!e) throw new DbgError('no_match', 'No request ' + params.id + ' is kept (only the last ' + net.max + ' are). Call page_network without id.');
      return { request: e };
    }
    const { since, limit } = params;
    const filter = params.filter ? String(params.filter).toLowerCase() : '';
    const failed = !!params.failedOnly;
    // a dev server's own traffic (HMR, /@vite/, source modules) is left out unless asked for, and counted
    let hidden = 0;
    const shown = (/** @type {Record<string, any>} */ e) => { if (params.devServer || !devServerNoise(e)) return true; hidden++; return false; };
    const pick = net.entries.filter((e) => e.id > since && (!filter || e.url.toLowerCase().includes(filter)) &&
      (!failed || e.error || (e.status != null && e.status >= 400)) && shown(e));
    const rows = pick.slice(0, limit).map((e) => ({ id: e.id, kind: e.kind, method: e.method, url: clip(e.url, 300), status: e.status,
      ms: e.ms, size: e.responseSize, error: e.error, pending: !e.released || e.reading > 0 || undefined,
      open: (e.released && e.ms == null && (e.kind === 'websocket' || e.kind === 'eventsource')) || undefined }));
    /** @type {Record<string, any>} */
    const out = { requests: rows, cursor: rows.length ? rows[rows.length - 1].id : since, more: pick.length > rows.length, inflight: net.inflight };
    if (params.resources) out.resources = net.resources().filter((r) => (!filter || r.url.toLowerCase().includes(filter)) && shown(r)).slice(0, limit);
    if (hidden) out.devServerHidden = hidden;
    return out;
  },
  async source(params) {
    let el;
    if (params.ref || params.selector) el = target(params);
    else el = /** @type {any} */ (window).__dbgSelected;
    if (!el) throw new DbgError('bad_target', 'Give ref or selector (no element has been selected by the human yet).');
    const out = Object.assign({ ref: refs.of(el), element: describeElement(el) }, sourceOf(el));
    if (out.generated) out.generated.map = await sourceMapOf(out.generated.url);
    return out;
  },
  async highlight(params) {
    if (params.clear) return { cleared: overlay.clear() };
    const list = Array.isArray(params.refs) ? params.refs.map((/** @type {string} */ r) => refs.resolve(r)) : [];
    if (params.selector) {
      list.push(...deepQueryAll(String(params.selector)).slice(0, 50));
    }
    if (!list.length) throw new DbgError('no_match', 'Nothing to highlight: give refs or a selector that matches.');
    overlay.show(list, params.label || '', params.durationMs);
    return { highlighted: list.map((el) => refs.of(el)) };
  },
  async ask(params, ctx) {
    if (ctx.role !== 'host') throw new DbgError('bad_target', 'Questions are shown in the tab (host), not in a frame.');
    return human.ask(/** @type {any} */ (params));
  },
  async notify(params) {
    return human.notify(/** @type {any} */ (params));
  },
  async record(params, ctx) {
    if (ctx.role !== 'host') throw new DbgError('bad_target', 'A recording is of the whole tab: send record to its host frame.');
    return params.on ? recorder.start(String(params.name || 'skill')) : recorder.stop();
  },
  async selection() {
    // the human's selection: in a text field it is the field's, not the document's
    const field = /** @type {HTMLInputElement|null} */ (deepActiveElement());
    if (field && typeof field.selectionStart === 'number' && field.selectionEnd !== field.selectionStart && /^(INPUT|TEXTAREA)$/.test(field.tagName)) {
      return { text: field.value.slice(field.selectionStart, Number(field.selectionEnd)), ref: refs.of(field), element: describeElement(field) };
    }
    const sel = getSelection();
    const node = sel && sel.rangeCount ? sel.getRangeAt(0).commonAncestorContainer : null;
    const el = node && (node.nodeType === 1 ? /** @type {Element} */ (node) : node.parentElement);
    const text = sel ? String(sel) : '';
    return { text, ref: text && el ? refs.of(el) : null, element: text && el ? describeElement(el) : null };
  },
  async tools(_params, ctx) {
    if (ctx.role === 'host') return webmcp.catalog();
    const own = await webmcp.local();
    return { api: own.api, tools: own.tools.slice(0, WEBMCP_MAX_TOOLS), total: webmcp.seen.length };
  },
  async tool_call(params, ctx) {
    return webmcp.call(String(params.name), params.arguments || {}, ctx.signal);
  },
  async screenshot(params, ctx) {
    const box = params.ref || params.selector ? await visibleBox(target({ ref: params.ref, selector: params.selector })) : null;
    // a same-origin frame hands its box (in the host's viewport) to the host, which talks to the extension
    if (ctx.role === 'frame') return { frameBox: toHostBox(box || { x: 0, y: 0, width: innerWidth, height: innerHeight }) };
    // without the extension, the bridge cuts the pixels from its desktop's capture of this tab's window
    if (params.desktop && !EXT_NONCE) return { box, viewport: { width: innerWidth, height: innerHeight }, devicePixelRatio };
    return capture(box, ctx.maxResult);
  },
  async open(params, ctx) {
    // page_open: a window of this tab's own origin, opened by the extension (a page script cannot open one without a
    // user gesture); the bridge waits for its client to register
    if (ctx.role !== 'host') throw new DbgError('bad_target', 'A tab opens a window from its top page, not a frame.');
    if (!EXT_NONCE) {
      throw new DbgError('not_available', 'Opening a tab needs the dbg-bridge extension (plugins/extension): this ' +
        'client came from a script tag or a plugin, which cannot open a window without a person\'s click.');
    }
    // the bridge sends an absolute URL of this origin; the extension's service worker checks it against the tab
    return ext.request('open', { url: String(params.url) }, 20000);
  },
  async viewport(params) {
    // the bridge finds this tab's browser window on its desktop by a marker in the title (the window shows the title
    // of the tab in front); `mark` sets it, leaving it out takes it off
    const marked = /** @type {any} */ (window).__dbgTitleMark;
    if (marked && document.title.startsWith(marked.mark)) document.title = marked.title;
    /** @type {any} */ (window).__dbgTitleMark = null;
    if (params.mark) {
      /** @type {any} */ (window).__dbgTitleMark = { mark: params.mark, title: document.title };
      document.title = params.mark + ' ' + document.title;
    }
    return { innerWidth, innerHeight, outerWidth, outerHeight, screenX, screenY, devicePixelRatio,
      visible: document.visibilityState === 'visible', focused: document.hasFocus() };
  },
};

// page_wait also says what broke while it waited (an error the awaited change logged, a request that failed)
const waitCommand = COMMANDS.wait;
COMMANDS.wait = async (params, ctx) => {
  const mark = problemsMark();
  const out = await waitCommand(params, ctx);
  return params.loadState ? out : Object.assign(out, problemsSince(mark));
};

/** A promise that rejects (cancelled) once `signal` aborts. @param {AbortSignal} signal @returns {Promise<never>} */
function aborted(signal) {
  return new Promise((_, reject) => {
    const fail = () => reject(new DbgError('cancelled', 'The call was cancelled (or its time ran out) while the command ran.'));
    if (signal.aborted) fail(); else signal.addEventListener('abort', fail, { once: true });
  });
}

/** Run one command here (in this window) and package the outcome. @returns {Promise<{ok: boolean, result?: any, error?: ErrorInfo}>} */
async function runLocal(/** @type {string} */ name, /** @type {Record<string, any>} */ params, /** @type {CommandContext} */ ctx) {
  const cmd = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? /** @type {Command} */ (COMMANDS[/** @type {CommandName} */ (name)]) : null;
  if (!cmd) {
    return { ok: false, error: { code: 'unknown_command', message: "Unknown command '" + name + "'. Known: " + Object.keys(COMMANDS).join(', ') + '.' } };
  }
  try {
    const run = cmd(params || {}, ctx);
    // A cancelled call answers at once; code that ignores `signal` runs on, but nobody waits for it.
    const result = ctx.signal ? await Promise.race([run, aborted(ctx.signal)]) : await run;
    // eval renders its own result; a screenshot is one long base64 string, capped in capture()
    return { ok: true, result: name === 'eval' || (name === 'screenshot' && ctx.role === 'host') ? result : toResult(result, ctx.maxResult) };
  } catch (e) {
    return { ok: false, error: toErrorInfo(e) };
  }
}
