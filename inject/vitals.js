// @ts-check
// dbg-bridge page client, part: what the page spends its time on, read in the page without a trace — long animation
// frames (Chromium's Long Animation Frames API) with the scripts that ran in them and, where the document allows
// the JS Self-Profiling API (`Document-Policy: js-profiling`), the functions sampled while they ran; and LCP, CLS and
// INP with the element each points at. Positions are in the code the dev server compiled: the bridge maps them
// (bridge/pages/stacks.py). Shares one IIFE with the other parts (inject/__init__.py).

/** Long frames kept (the newest). */
const VITALS_FRAMES = 30;
/** The sampling profiler's interval (ms) and buffer (samples), restarted after each long frame it attributed. */
const PROFILE_INTERVAL_MS = 10;
const PROFILE_BUFFER = 6000;
/** A script in a long frame is listed when it ran at least this long (ms). */
const SCRIPT_MIN_MS = 5;

const vitals = {
  /** @type {any[]} */ frames: [],
  /** @type {{ms: number, size: number, el: Element|null, url: string}|null} */ lcp: null,
  cls: { value: 0, window: 0, windowStart: 0, last: 0, /** @type {{value: number, els: Element[]}} */ worst: { value: 0, els: [] }, /** @type {Element[]} */ els: [] },
  /** @type {{ms: number, type: string, el: Element|null, act: number, at: number}|null} */ inp: null,
  /** @type {any} */ profiler: null,
  profiling: 'off',
  installed: false,

  install() {
    if (this.installed || typeof PerformanceObserver === 'undefined') return;
    this.installed = true;
    const types = /** @type {string[]} */ (PerformanceObserver.supportedEntryTypes || []);
    const watch = (/** @type {string} */ type, /** @type {(e: any) => void} */ take, /** @type {Record<string, any>} */ more) => {
      if (!types.includes(type)) return;
      try { new PerformanceObserver((list) => { for (const e of list.getEntries()) take(e); }).observe(Object.assign({ type, buffered: true }, more)); } catch (_) { /* not here */ }
    };
    watch('long-animation-frame', (e) => this.frame(e), {});
    watch('largest-contentful-paint', (e) => { this.lcp = { ms: e.startTime, size: e.size, el: e.element || null, url: e.url || '' }; }, {});
    watch('layout-shift', (e) => this.shift(e), {});
    watch('event', (e) => this.interaction(e), { durationThreshold: 16 });
    this.startProfiler();
  },

  startProfiler() {
    const P = /** @type {any} */ (window).Profiler;
    if (typeof P !== 'function') { this.profiling = 'unsupported'; return; }
    try {
      this.profiler = new P({ sampleInterval: PROFILE_INTERVAL_MS, maxBufferSize: PROFILE_BUFFER });
      this.profiling = 'on';
      this.profiler.addEventListener('samplebufferfull', () => this.restart(null));
    } catch (_) {
      this.profiler = null;
      this.profiling = 'not allowed'; // the document was served without Document-Policy: js-profiling
    }
  },

  /** Stop the profiler (attributing its samples to `frame` if given) and start another. @param {any} frame */
  async restart(frame) {
    const p = this.profiler;
    if (!p) return;
    this.profiler = null;
    this.startProfiler();
    let trace;
    try { trace = await p.stop(); } catch (_) { return; }
    if (frame) frame.hot = hotFunctions(trace, frame.start, frame.start + frame.ms);
  },

  /** @param {any} e a long-animation-frame entry */
  frame(e) {
    // an act's synthetic input runs inside the client's own task: its script entry is the client (the sampled
    // functions say which of the app's ran)
    const scripts = (e.scripts || []).filter((/** @type {any} */ s) => s.duration >= SCRIPT_MIN_MS)
      .map((/** @type {any} */ s) => /dbg_client\.js/.test(s.sourceURL || '')
        ? { ms: Math.round(s.duration), invoker: 'dbg-bridge client (an act, a snapshot)', type: 'client', fn: '', url: '' }
        : { ms: Math.round(s.duration), invoker: clip(String(s.invoker || ''), 120), type: s.invokerType,
          fn: s.sourceFunctionName || '', url: s.sourceURL || '', char: s.sourceCharPosition, forcedLayoutMs: Math.round(s.forcedStyleAndLayoutDuration || 0) });
    const frame = { start: Math.round(e.startTime), ms: Math.round(e.duration), blockingMs: Math.round(e.blockingDuration || 0),
      renderMs: e.renderStart ? Math.round(e.startTime + e.duration - e.renderStart) : 0, act: acts.now() || undefined,
      at: Date.now(), scripts, /** @type {any} */ hot: undefined };
    this.frames.push(frame);
    if (this.frames.length > VITALS_FRAMES) this.frames.splice(0, this.frames.length - VITALS_FRAMES);
    if (this.profiler) this.restart(frame);
  },

  /** Cumulative layout shift as web-vitals counts it: the worst session window (gaps < 1 s, windows < 5 s). @param {any} e */
  shift(e) {
    if (e.hadRecentInput) return;
    const c = this.cls;
    const els = (e.sources || []).map((/** @type {any} */ s) => s.node).filter((/** @type {any} */ n) => n && n.nodeType === 1);
    if (c.window && e.startTime - c.last < 1000 && e.startTime - c.windowStart < 5000) { c.window += e.value; c.els.push(...els); }
    else { c.window = e.value; c.windowStart = e.startTime; c.els = els; }
    c.last = e.startTime;
    if (c.window > c.worst.value) c.worst = { value: c.window, els: c.els.slice(0, 5) };
    c.value = c.worst.value;
  },

  /** INP: the slowest interaction (event timing entries with an interactionId). @param {any} e */
  interaction(e) {
    if (!e.interactionId) return;
    if (!this.inp || e.duration > this.inp.ms) this.inp = { ms: Math.round(e.duration), type: e.name, el: e.target || null, act: acts.now(), at: Date.now() };
  },
};

/** Where the samples between `from` and `to` (ms, performance time) were: the app's own function at the top of each
 * sample (a library frame's time goes to the app function that called it), the busiest first.
 * @param {any} trace a ProfilerTrace @param {number} from @param {number} to */
function hotFunctions(trace, from, to) {
  /** @type {Map<number, number>} */
  const counts = new Map();
  let total = 0;
  const lib = (/** @type {any} */ f) => f.resourceId == null || /node_modules|dbg_client\.js|\/@vite\/|chunk-/.test(trace.resources[f.resourceId] || '');
  const samples = trace.samples;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    if (s.timestamp < from || s.timestamp > to || s.stackId == null) continue;
    // a sample stands for the time until the next one (the browser may sample less often than asked)
    const ms = Math.min(i + 1 < samples.length ? samples[i + 1].timestamp - s.timestamp : PROFILE_INTERVAL_MS, 4 * PROFILE_INTERVAL_MS);
    total += ms;
    let at = trace.stacks[s.stackId];
    while (at && lib(trace.frames[at.frameId])) at = at.parentId == null ? null : trace.stacks[at.parentId];
    if (at) counts.set(at.frameId, (counts.get(at.frameId) || 0) + ms);
  }
  return Array.from(counts).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([id, ms]) => {
    const f = trace.frames[id];
    return { fn: f.name || '(anonymous)', url: trace.resources[f.resourceId], line: f.line, column: f.column,
      ms: Math.round(ms), share: total ? Math.round((100 * ms) / total) : 0 };
  });
}

/** The line and column of a character position in a script (fetched from the browser's cache). @type {Map<string, string|null>} */
const scriptTexts = new Map();
/** @param {string} url @param {number} char */
async function charToLine(url, char) {
  if (!url || char == null || char < 0) return null;
  if (!scriptTexts.has(url)) {
    let text = null;
    try {
      if (new URL(url).origin === location.origin) {
        const res = await fetch(url, { cache: 'force-cache', credentials: 'same-origin' });
        text = res.ok ? await res.text() : null;
      }
    } catch (_) { text = null; }
    scriptTexts.set(url, text);
    if (scriptTexts.size > 10) scriptTexts.delete(scriptTexts.keys().next().value || ''); // the oldest goes
  }
  const text = scriptTexts.get(url);
  if (text == null || char > text.length) return null;
  const before = text.slice(0, char);
  const line = before.split('\n').length;
  return { line, column: char - before.lastIndexOf('\n') };
}

/** An element as the vitals name it: its ref, a short description, and where it comes from (a compiled position is
 * mapped by the bridge). @param {Element|null} el */
function vitalElement(el) {
  if (!el || !el.isConnected) return el ? { element: describeElement(el), gone: true } : null;
  /** @type {Record<string, any>} */
  const out = { ref: refs.of(el), element: describeElement(el) };
  try {
    const src = sourceOf(el);
    if (src.generated) out.generated = src.generated.url + ':' + src.generated.line + ':' + src.generated.column;
    else if (src.file && src.line) out.source = src.file + ':' + src.line + (src.column ? ':' + src.column : '');
    if (src.components && src.components.length) out.component = src.components[0];
  } catch (_) { /* no source */ }
  return out;
}

/** The long frames page_vitals lists at most (the newest). */
const VITALS_SHOWN = 10;

/** The vitals command: the long frames since `since` (ms, performance time), and LCP, CLS, INP. @param {{since: number}} params */
async function readVitals(params) {
  await new Promise((r) => setTimeout(r, 0)); // a long frame's entry is delivered after the frame
  const frames = vitals.frames.filter((f) => f.start > params.since).slice(-VITALS_SHOWN);
  for (const f of frames) {
    for (const s of f.scripts) if (s.line == null && s.url) Object.assign(s, await charToLine(s.url, s.char));
  }
  const c = vitals.cls;
  return {
    frames, cursor: frames.length ? frames[frames.length - 1].start : params.since, profiling: vitals.profiling,
    lcp: vitals.lcp ? Object.assign({ ms: Math.round(vitals.lcp.ms), size: vitals.lcp.size }, vitals.lcp.url ? { url: vitals.lcp.url } : null, vitalElement(vitals.lcp.el)) : null,
    cls: { value: Math.round(c.value * 1000) / 1000, elements: c.worst.els.map(vitalElement).filter(Boolean) },
    inp: vitals.inp ? Object.assign({ ms: vitals.inp.ms, type: vitals.inp.type, act: vitals.inp.act || undefined }, vitalElement(vitals.inp.el)) : null,
    acts: (acts.load(), acts.journal.filter((a) => a.doc === DOC_ID).map((a) => ({ seq: a.seq, label: a.label }))),
  };
}
