// @ts-check
// dbg-bridge page client, part: the dev server — this tab's document generation (1 at its first load, +1 at each
// reload or same-origin navigation) and its dev server's hot updates, applied or failed (with the error at
// file:line), counted across the tab's documents and sent to the bridge (page_list, every page answer, page_wait
// update). Vite: its own client module's events (vite:afterUpdate) and its HMR socket's error messages; webpack: the
// status events dbg-bridge-webpack-plugin's entry forwards and webpack-dev-server's socket messages. Shares one IIFE
// with the other parts (inject/__init__.py).

/** @typedef {{message: string, file?: string | null, line?: number | null, column?: number | null}} DevErrorInfo */

const DEV_KEY = '__dbg_dev';

/** The tab's counters (sessionStorage: they outlive this document), and the update cycle under way. */
const dev = (() => {
  /** @type {Record<string, any>} */
  let saved = {};
  try { saved = JSON.parse(sessionStorage.getItem(DEV_KEY) || '{}') || {}; } catch (_) { /* storage off */ }
  const top = window === window.top;
  const server = String(saved.server || '');
  const reloaded = top && !!server; // a new document of a tab that has a dev server: it counts as an update
  return {
    top,
    generation: (Number(saved.generation) || 0) + (top ? 1 : 0),
    updates: (Number(saved.updates) || 0) + (reloaded ? 1 : 0),
    /** @type {number | null} */ updatedAt: reloaded ? Date.now() : saved.updatedAt || null,
    server,
    reloaded,
    /** @type {DevErrorInfo | null} */ error: null,
    /** an update message came and its failure (if any) is not known yet: its error counts once, its apply not */
    failedCycle: false,
    /** @type {((msg: Record<string, any>) => void) | null} */ send: null,
  };
})();

/** Keep the counters for the tab's next document. */
function devSave() {
  if (!dev.top) return;
  try {
    sessionStorage.setItem(DEV_KEY, JSON.stringify({ generation: dev.generation, updates: dev.updates, updatedAt: dev.updatedAt, server: dev.server }));
  } catch (_) { /* storage off or full: counts restart with the next document */ }
}
devSave();

/** What the bridge is told (RegisterRequest.dev, DevMsg.dev); null before any dev server client was seen. */
function devInfo() {
  if (!dev.server) return null;
  return { server: dev.server, updates: dev.updates, updatedAt: dev.updatedAt, error: dev.error, reloaded: dev.reloaded };
}

/** One update came: applied (error null) or failed. @param {string} server @param {DevErrorInfo | null} error */
function devUpdate(server, error) {
  if (!dev.top) return;
  dev.server = server;
  dev.updates++;
  dev.updatedAt = Date.now();
  dev.error = error;
  dev.reloaded = false;
  devSave();
  const info = devInfo();
  if (dev.send && info) dev.send({ type: 'dev', dev: info });
}

/** A dev server client was found (counts still 0): the bridge lists the page as one with hot updates. @param {string} server */
function devHooked(server) {
  if (!dev.top || dev.server === server) return;
  dev.server = server;
  devSave();
  const info = devInfo();
  if (dev.send && info) dev.send({ type: 'dev', dev: info });
}

/** How long the DOM must be still after an update's modules ran before it counts as applied (React Fast Refresh
 * re-renders on a short debounce after Vite says the update is done), and at most how long to wait for that. */
const UPDATE_QUIET_MS = 50;
const UPDATE_QUIET_CAP_MS = 1000;

/** Call `done` once the page's DOM has been still for UPDATE_QUIET_MS (at most UPDATE_QUIET_CAP_MS from now).
 * @param {() => void} done */
function domQuiet(done) {
  const started = Date.now();
  let last = started;
  const mo = new MutationObserver(() => { last = Date.now(); });
  mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const tick = () => {
    const now = Date.now();
    if (now - last >= UPDATE_QUIET_MS || now - started >= UPDATE_QUIET_CAP_MS) { mo.disconnect(); done(); } else setTimeout(tick, 10);
  };
  setTimeout(tick, UPDATE_QUIET_MS);
}

/** A file path as the dev server gave it, written as the page loads it (relative to the project's root): a URL of
 * the page's origin by its path, an absolute path by the longest tail that is a path the page loaded a module from
 * (Vite serves /src/App.jsx for <root>/src/App.jsx). @param {any} file */
function devFile(file) {
  const f = String(file || '').replace(/\?.*$/, '');
  try { const u = new URL(f); if (u.origin === location.origin) return u.pathname.replace(/^\//, ''); } catch (_) { /* a path */ }
  if (!f.startsWith('/')) return f;
  let best = '';
  for (const r of /** @type {any[]} */ (performance.getEntriesByType('resource'))) {
    let path = '';
    try { const u = new URL(r.name); if (u.origin === location.origin) path = decodeURIComponent(u.pathname); } catch (_) { continue; }
    if (path.length > best.length && path.length > 1 && f.endsWith(path)) best = path;
  }
  return best ? best.slice(1) : f;
}

/** Vite's error payload ({message, id, loc: {file, line, column}}) in our shape. @param {any} err */
function viteError(err) {
  const loc = (err && err.loc) || {};
  const message = String((err && err.message) || 'the update failed').replace(/\u001b\[[0-9;]*m/g, '');
  const file = String(loc.file || (err && err.id) || '');
  if (Number.isFinite(loc.line)) {
    return { message: message.slice(0, 4000), file: devFile(file) || null, line: loc.line, column: Number.isFinite(loc.column) ? loc.column + 1 : null };
  }
  // Rolldown (Vite 8) writes the position into the message only: "╭─[ src/App.jsx:11:22 ]"
  const at = /((?:[A-Za-z]:)?[^\s:\][()'"]+\.[A-Za-z0-9]+):(\d+):(\d+)/.exec(message);
  return { message: message.slice(0, 4000), file: devFile(at ? at[1] : file) || null,
    line: at ? Number(at[2]) : null, column: at ? Number(at[3]) : null };
}

/** webpack's first compile error (a string, or {message, moduleName, loc: "12:5"}). @param {any} e */
function webpackError(e) {
  const text = typeof e === 'string' ? e : String((e && e.message) || 'the compile failed');
  const clean = text.replace(/\u001b\[[0-9;]*m/g, '');
  const mod = e && typeof e === 'object' ? String(e.moduleName || e.moduleIdentifier || '') : '';
  const at = /(?:^|\n)\s*(?:ERROR in |Module build failed[^\n]*\n[^\n]*?)?(\.{0,2}\/[^\s:()]+)[\s:(]+(\d+):(\d+)/.exec(clean);
  const loc = e && typeof e === 'object' && typeof e.loc === 'string' ? /^(\d+):(\d+)/.exec(e.loc) : null;
  const file = (mod || (at ? at[1] : '')).replace(/^\.\//, '').replace(/^.*!/, '');
  return { message: clean.slice(0, 4000), file: file || null,
    line: loc ? Number(loc[1]) : at ? Number(at[2]) : null, column: loc ? Number(loc[2]) + 1 : at ? Number(at[3]) : null };
}

/** A message on a socket the page opened (network.js calls this for every one): a dev server's HMR messages
 * start an update cycle or fail it. Vite sends its error before the failed module's answer, so it is known before
 * vite:afterUpdate says the (failed) update is done. @param {Record<string, any>} entry @param {any} data */
function devServerMessage(entry, data) {
  if (typeof data !== 'string' || data.length > 200000 || !dev.top) return;
  const vite = /vite-hmr/.test(String(entry.protocol || ''));
  const webpack = !vite && /^wss?:\/\/[^/]+\/ws\/?$/.test(String(entry.url || ''));
  if (!vite && !webpack) return;
  if (!/"type"\s*:\s*"(?:update|error|errors|invalid|ok|still-ok)"/.test(data)) return;
  let msg;
  try { msg = JSON.parse(data); } catch (_) { return; }
  if (vite) {
    if (msg.type === 'update') dev.failedCycle = false;
    else if (msg.type === 'error') { dev.failedCycle = true; devUpdate('vite', viteError(msg.err)); }
  } else if (msg.type === 'invalid') dev.failedCycle = false;
  else if (msg.type === 'errors' && Array.isArray(msg.data) && msg.data.length) { dev.failedCycle = true; devUpdate('webpack', webpackError(msg.data[0])); }
}

/** Vite's page client is a module this classic script can import too (the same URL is the same instance): its hot
 * context gives the update events. A page without it (no Vite, or a build) has nothing to hook. */
async function hookVite() {
  const script = /** @type {HTMLScriptElement | null} */ (document.querySelector('script[type="module"][src*="/@vite/client"]'));
  if (!script || !dev.top) return;
  try {
    const client = await import(script.src);
    if (typeof client.createHotContext !== 'function') return;
    const hot = client.createHotContext('/@dbg-bridge/devserver');
    hot.on('vite:afterUpdate', () => {
      if (dev.failedCycle) { dev.failedCycle = false; return; } // its error was the update's answer
      domQuiet(() => devUpdate('vite', null));
    });
    devHooked('vite');
  } catch (_) { /* not Vite's client after all, or it failed to load: no hot updates to report */ }
}

/** How long a page whose webpack hot update failed may take to reload (webpack-dev-server's own answer to it). */
const WEBPACK_RELOAD_GRACE_MS = 2000;

/** webpack: dbg-bridge-webpack-plugin's entry dispatches `dbg:dev` with the hot runtime's status changes. */
function hookWebpack() {
  let last = '';
  window.addEventListener('dbg:dev', (ev) => {
    const d = /** @type {CustomEvent} */ (ev).detail || {};
    if (d.server !== 'webpack') return;
    const status = String(d.status || '');
    if (status === 'hooked') devHooked('webpack');
    else if (status === 'idle' && last === 'apply') {
      if (dev.failedCycle) dev.failedCycle = false; else domQuiet(() => devUpdate('webpack', null));
    } else if ((status === 'fail' || status === 'abort') && !dev.failedCycle) {
      // webpack-dev-server reloads the page next (the reload counts); with hot: 'only' it does not: say so then
      setTimeout(() => devUpdate('webpack', { message: 'webpack could not apply the hot update (' + status +
        ') and the page was not reloaded: reload it (page_navigate reload)', file: null, line: null, column: null }), WEBPACK_RELOAD_GRACE_MS);
    }
    last = status;
  });
}

/** Start watching (the host page only: frames share the tab's dev server). @param {(msg: Record<string, any>) => void} send */
function watchDevServer(send) {
  if (!dev.top) return;
  dev.send = send;
  hookWebpack();
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void hookVite());
  else void hookVite();
}
