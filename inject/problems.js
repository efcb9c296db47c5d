// @ts-check
// dbg-bridge page client, part: what went wrong while the agent acted — the errors and failed requests since a mark
// (an act's, a wait's, a navigation's), the acts that came before each error (a journal kept across reloads, so a
// skill can replay them), and the source maps of the modules in an error's stack, fetched for the bridge to map the
// frames back to the lines written (bridge/pages/stacks.py). Shares one IIFE with the other parts (inject/__init__.py).

const ACTS_KEY = '__dbg_acts';
/** Acts the journal keeps (the steps a repro skill is made from). */
const ACTS_KEPT = 50;
/** Characters of sources' text sent with maps, all modules of one answer together (the excerpt of an error's line). */
const MAX_SOURCES_TEXT = 400000;
/** Errors and failed requests one answer carries at most (an act that broke everything says how many more). */
const PROBLEMS_MAX = 10;

/** @typedef {{seq: number, doc: string, url: string, t: number, action: string, frame: string, target?: RecordedTarget,
 *   value?: string, secret?: boolean, key?: string, label: string}} ActStep */

const acts = {
  /** @type {ActStep[]} */ journal: [],
  seq: 0,
  /** The act running now (its journal seq), 0 between acts: an error logged meanwhile is the act's. */
  current: 0,
  loaded: false,
  load() {
    if (this.loaded) return;
    this.loaded = true;
    try {
      const saved = JSON.parse(sessionStorage.getItem(ACTS_KEY) || 'null');
      if (saved && Array.isArray(saved.journal)) { this.journal = saved.journal.slice(-ACTS_KEPT); this.seq = Number(saved.seq) || 0; }
    } catch (_) { /* storage off */ }
  },
  save() {
    try { sessionStorage.setItem(ACTS_KEY, JSON.stringify({ seq: this.seq, journal: this.journal })); } catch (_) { /* full */ }
  },
  /** Note one action the agent is about to do (returns its seq; errors until the next act name it).
   * @param {string} action @param {Element|null} el @param {Record<string, any>} a @param {string} frame */
  begin(action, el, a, frame) {
    // read again first: the tab's same-origin frames share this journal (sessionStorage) and append to it too
    this.loaded = false;
    this.load();
    /** @type {ActStep} */
    const step = { seq: ++this.seq, doc: DOC_ID, url: location.href, t: Date.now(), action, frame: frame || 'host', label: '' };
    if (el) {
      try { step.target = recorder.describe(el); } catch (_) { /* a detached element: no target */ }
      const t = step.target;
      step.label = action + ' ' + (t ? (t.role || t.tag) + ' ' + JSON.stringify(clip(t.name || t.text || t.selector, 60)) : refs.of(el));
    } else {
      step.label = action + (a.url ? ' ' + clip(String(a.url), 120) : '');
      if (a.url) step.url = String(a.url);
    }
    // a password never goes into the journal (a repro skill asks for it as a secret parameter)
    if (step.target && step.target.inputType === 'password') step.secret = true;
    else if (a.value != null && (action === 'fill' || action === 'type' || action === 'select')) step.value = clip(String(a.value), 2000);
    if (a.key) step.key = String(a.key);
    this.journal.push(step);
    if (this.journal.length > ACTS_KEPT) this.journal.splice(0, this.journal.length - ACTS_KEPT);
    this.current = step.seq;
    this.save();
    return step.seq;
  },
  end() { this.current = 0; },
  /** The act an error logged now follows: the one running, else the last one. */
  now() { this.load(); return this.current || this.seq; },
};

/** Where the page's logs are now: what `problemsSince` counts from. */
function problemsMark() {
  return { console: consoleLog.seq, net: net.seq, doc: DOC_ID };
}

/** Failed requests (a network error, or 4xx/5xx) of the app, not the dev server's own. @param {Record<string, any>} e */
function failedRequest(e) {
  return !devServerNoise(e) && (!!e.error && e.kind !== 'websocket' || (e.status != null && e.status >= 400));
}

/** The errors (uncaught, unhandled rejections, console.error) and failed requests since `mark`, with their raw
 * stacks (the bridge maps them): null when there were none. @param {{console: number, net: number, doc?: string}} mark */
function problemsSince(mark) {
  const errors = consoleLog.entries.filter((e) => e.seq > mark.console && e.level === 'error');
  const netFrom = mark.doc && mark.doc !== DOC_ID ? 0 : mark.net; // a new document started its requests afresh
  const failed = net.entries.filter((e) => e.id > netFrom && e.ms != null && failedRequest(e));
  if (!errors.length && !failed.length) return null;
  /** @type {Record<string, any>} */
  const out = {};
  if (errors.length) out.errors = errors.slice(-PROBLEMS_MAX).map((e) => ({ seq: e.seq, text: e.text, stack: e.stack, act: e.act }));
  if (errors.length > PROBLEMS_MAX) out.moreErrors = errors.length - PROBLEMS_MAX;
  if (failed.length) out.failed = failed.slice(-PROBLEMS_MAX).map((e) => ({ id: e.id, method: e.method, url: e.url, status: e.status, error: e.error }));
  if (failed.length > PROBLEMS_MAX) out.moreFailed = failed.length - PROBLEMS_MAX;
  return out;
}

/** How many hot updates this document took (webpack's hot-update scripts): a module's map from before one is stale. */
function hotUpdates() {
  try { return performance.getEntriesByType('resource').filter((r) => /\.hot-update\.(?:js|mjs)(?:[?#]|$)/.test(r.name)).length; } catch (_) { return 0; }
}

/** The source map of each module URL a stack names, as sourceMapOf gives it plus the sources' text where it fits;
 * `webpack-internal:///./src/x.js` (eval-source-map) is looked up in the bundles this document loaded.
 * @param {string[]} urls @param {number} [maxResult] */
async function sourceMaps(urls, maxResult) {
  /** @type {Record<string, any>} */
  const maps = {};
  let budget = MAX_SOURCES_TEXT;
  // the answer stays under the result cap: a map that would not fit is left out (its frames stay as compiled)
  let room = Math.floor((maxResult || 512000) * 0.8);
  for (const url of urls) {
    /** @type {any} */
    let full = /^webpack-internal:/.test(url) ? await evalSourceMap(url) : await sourceMapOf(url, true);
    if (!full && !/^webpack-internal:/.test(url)) full = await plainScript(url, Math.min(budget, room));
    if (full && full.plain && full.text) { budget -= full.text.length; room -= full.text.length; }
    if (full && !full.plain && (full.mappings.length > room || full.sources.length > MAX_ITEMS)) full = null;
    if (full && !full.plain) room -= full.mappings.length + JSON.stringify(full.sources).length;
    if (full && Array.isArray(full.sourcesContent)) {
      // the app's own sources only (a library's text is never an excerpt), within the budget
      full.sourcesContent = full.sourcesContent.map((/** @type {any} */ text, /** @type {number} */ i) => {
        if (typeof text !== 'string' || /node_modules|webpack\/runtime|webpack\/bootstrap/.test(full.sources[i] || '') ||
          text.length > Math.min(budget, room)) return null;
        budget -= text.length;
        room -= text.length;
        return text;
      });
    }
    maps[url] = full;
  }
  return { maps, hot: hotUpdates() };
}

/** A script served as written (no sourceMappingURL: plain JS, no build step): its positions are the lines written,
 * and its text gives the excerpt. null when it cannot be read. @param {string} url @param {number} budget */
async function plainScript(url, budget) {
  try {
    if (new URL(url).origin !== location.origin) return null;
    const res = await fetch(url, { cache: 'force-cache', credentials: 'same-origin' });
    if (!res.ok) return null;
    const text = await res.text();
    if (text.includes('sourceMappingURL=')) return null; // a map it names could not be read: not the file as written
    return { url, plain: true, text: text.length <= budget ? text : undefined };
  } catch (_) { return null; }
}

/** The inline map webpack's eval-source-map puts in a module's eval'd code, found in the scripts this document loaded
 * (newest first: a hot update's code replaces the bundle's). @param {string} url */
async function evalSourceMap(url) {
  const marker = 'sourceURL=' + url;
  const scripts = performance.getEntriesByType('resource').map((r) => r.name)
    .concat(Array.from(document.scripts, (s) => s.src)).filter((u) => u && /\.m?js(?:[?#]|$)/.test(u) && !/dbg_client\.js/.test(u));
  for (const src of Array.from(new Set(scripts)).reverse()) {
    let code;
    try {
      if (new URL(src).origin !== location.origin) continue;
      const res = await fetch(src, { cache: 'force-cache', credentials: 'same-origin' });
      if (!res.ok) continue;
      code = await res.text();
    } catch (_) { continue; }
    const at = code.lastIndexOf(marker);
    if (at < 0) continue;
    // the map comes just before its sourceURL, in the same eval string
    const from = code.lastIndexOf('sourceMappingURL=data:application/json', at);
    if (from < 0 || code.lastIndexOf('eval(', at) > from) return null;
    const b64 = /base64,([A-Za-z0-9+/=]+)/.exec(code.slice(from, at));
    if (!b64) return null;
    try {
      const map = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(b64[1]), (c) => c.charCodeAt(0))));
      if (typeof map.mappings !== 'string' || !Array.isArray(map.sources)) return null;
      return { url, sources: map.sources.map(String), sourceRoot: typeof map.sourceRoot === 'string' ? map.sourceRoot : undefined,
        mappings: map.mappings, sourcesContent: Array.isArray(map.sourcesContent) ? map.sourcesContent : undefined };
    } catch (_) { return null; }
  }
  return null;
}
