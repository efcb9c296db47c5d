// @ts-check
// dbg-bridge page client, part: console capture (kept across the last few reloads of this tab). Shares one IIFE with the other parts (inject/__init__.py).

const CONSOLE_KEY = '__dbg_console';
const consoleLog = {
  /** @type {Array<{seq: number, level: string, text: string, time: number, url: string, stack?: string, act?: number, thrown?: boolean}>} */
  entries: [],
  seq: 0,
  max: 500,
  /** @param {string} level @param {any[]} args @param {string} [stack] */
  add(level, args, stack) {
    // An Error logged as is (console.error(err)) reads as its message, and its own stack is the entry's stack.
    const error = args.find((a) => a instanceof Error);
    if (error && error.stack) stack = String(error.stack);
    const text = args.map((a) => {
      if (typeof a === 'string') return a;
      if (a instanceof Error) return a.name + ': ' + a.message;
      try { return JSON.stringify(render(a, 0, new Map(), '')); } catch (_) { return String(a); }
    }).join(' ');
    // the client's own frames (this console wrapper) are not the app's
    const frames = stack ? String(stack).split('\n').filter((l) => !/dbg_client\.js/.test(l) && (/^\s+at /.test(l) ||
      !/^\w*Error\b/.test(l))).join('\n') : '';
    this.entries.push({ seq: ++this.seq, level, text: clip(text, 4000), time: Date.now(), url: location.href,
      stack: frames ? frames.slice(0, 4000) : undefined, act: level === 'error' ? acts.now() || undefined : undefined,
      // an error thrown (uncaught, a rejection) or an Error logged as is: what frameworks that catch a handler's
      // error (Vue, error boundaries) do with it
      thrown: level === 'error' && (!!error || /^(Uncaught|Unhandled rejection)\b/.test(text)) || undefined });
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
  },
  install() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(CONSOLE_KEY) || 'null');
      if (saved && Array.isArray(saved.entries)) {
        this.entries = saved.entries.slice(-200);
        this.seq = Number(saved.seq) || 0;
        this.entries.push({ seq: ++this.seq, level: 'info', text: '--- page reloaded or navigated ---', time: Date.now(), url: location.href });
      }
    } catch (_) { /* storage off */ }
    const c = /** @type {any} */ (console);
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
      const orig = c[level];
      c[level] = function (/** @type {any[]} */ ...args) {
        try { consoleLog.add(level, args, level === 'error' ? new Error().stack : undefined); } catch (_) { /* never break the app */ }
        return orig.apply(this, args);
      };
    }
    window.addEventListener('error', (ev) => {
      const e = /** @type {ErrorEvent} */ (ev);
      if (!e.message && ev.target && ev.target !== window) {
        const t = /** @type {any} */ (ev.target);
        consoleLog.add('error', ['Failed to load ' + (t.tagName || 'resource').toLowerCase() + ': ' + (t.src || t.href || '')]);
        return;
      }
      consoleLog.add('error', ['Uncaught ' + (e.error && e.error.name ? e.error.name + ': ' + e.error.message : e.message)],
        e.error && e.error.stack ? e.error.stack : e.filename + ':' + e.lineno + ':' + e.colno);
    }, true);
    window.addEventListener('unhandledrejection', (ev) => {
      const r = ev.reason;
      consoleLog.add('error', ['Unhandled rejection: ' + (r && r.message ? (r.name || 'Error') + ': ' + r.message : String(r))], r && r.stack);
    });
    window.addEventListener('pagehide', () => {
      try { sessionStorage.setItem(CONSOLE_KEY, JSON.stringify({ seq: this.seq, entries: this.entries.slice(-200) })); } catch (_) { /* full */ }
    });
  },
};
