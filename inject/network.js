// @ts-check
// dbg-bridge page client, part: network capture: fetch, XHR, WebSocket, EventSource (+ resource timing). Shares one IIFE with the other parts (inject/__init__.py).

const SECRET_HEADERS = /^(authorization|cookie|set-cookie|proxy-authorization|x-api-key|x-auth-token|x-csrf-token)$/i;
/** Characters of a response body kept whole (an API answer the agent reads with page_network id). */
const BODY_KEPT = 65536;
/** A dev server's own traffic: Vite's client, optimised deps and file-system modules, webpack's hot updates and
 * HMR channels (webpack-dev-server, Next.js, webpack-hot-middleware). */
const DEV_PATHS = /\/@vite\/|\/@fs\/|\/@id\/|\/@react-refresh|\/node_modules\/\.vite\/|\/__vite_ping|\.hot-update\.(?:js|mjs|json)(?:[?#]|$)|\/__webpack_hmr|\/sockjs-node(?:\/|$)|\/_next\/webpack-hmr|\/webpack-dev-server|^wss?:\/\/[^/]+\/ws\/?$/;
/** A source module a dev server compiles on request: a path a browser never loads raw (.jsx, .ts, .vue, …) or one
 * a file with the query Vite adds (?t=<ms>, ?v=<hash>, ?import, ?html-proxy). */
const SOURCE_MODULE = /\.(?:[mc]?tsx?|jsx|vue|svelte|scss|sass|less|styl)(?:[?#]|$)|\.\w+\?(?:[^#]*&)?(?:t=\d{10,}|v=[0-9a-f]{6,}|import|html-proxy|worker_file|direct)(?:[&=#]|$)/;

/** Dev-server noise: HMR sockets and pings, the dev server's own modules, source modules, hot updates.
 * @param {Record<string, any>} e an entry or a resource row */
function devServerNoise(e) {
  const url = String(e.url || '');
  if (e.kind === 'websocket' && /vite-hmr|vite-ping/.test(String(e.protocol || ''))) return true;
  const accept = e.requestHeaders && e.requestHeaders.accept;
  if (accept && /text\/x-vite-ping/.test(accept)) return true;
  let path = url;
  try { const u = new URL(url, location.href); path = u.protocol.startsWith('ws') ? url : u.pathname + u.search; } catch (_) { /* as given */ }
  return DEV_PATHS.test(path) || SOURCE_MODULE.test(path);
}

/** At most n characters of a body, whitespace as sent. @param {string} t @param {number} n */
function keepBody(t, n) {
  return t.length > n ? t.slice(0, n) + '…[' + (t.length - n) + ' more chars]' : t;
}
const net = {
  /** @type {Array<Record<string, any>>} */ entries: [],
  seq: 0,
  inflight: 0,
  lastChange: Date.now(),
  max: 300,
  /** Our own traffic to the bridge is not the app's: leave it out. @param {string} url */
  ours(url) {
    try {
      const u = new URL(url, location.href);
      const b = new URL(BRIDGE);
      return u.pathname.startsWith('/bridge/') && u.port === b.port && (u.hostname === b.hostname || u.hostname.endsWith('.localhost'));
    } catch (_) { return false; }
  },
  /** @param {Record<string, any>} e */
  start(e) {
    e.id = ++this.seq;
    e.startedAt = Date.now();
    this.entries.push(e);
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    this.inflight++;
    this.lastChange = Date.now();
    return e;
  },
  /** The request is no longer in flight (its answer's headers came, or it failed; a WebSocket or EventSource: it
   * opened). Once per request. @param {Record<string, any>} e */
  release(e) {
    if (e.released) return;
    e.released = true;
    this.inflight = Math.max(0, this.inflight - 1);
    this.lastChange = Date.now();
  },
  /** The request is over: how long it took; released if it still was in flight. @param {Record<string, any>} e */
  end(e) {
    if (e.ms != null) return;
    e.ms = Date.now() - e.startedAt;
    this.release(e);
  },
  /** In flight again while the app reads the body of a response whose headers released it: the read's promise
   * (json(), text(), …) ends it. Streams read with getReader() are not counted: their end may never come.
   * @param {Record<string, any>} e @param {Response} res */
  trackBody(e, res) {
    const self = this;
    for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
      const read = /** @type {any} */ (res)[name];
      if (typeof read !== 'function') continue;
      Object.defineProperty(res, name, { configurable: true, writable: true, value: function () {
        const p = read.apply(this, /** @type {any} */ (arguments));
        self.inflight++;
        self.lastChange = Date.now();
        e.reading = (e.reading || 0) + 1;
        const done = () => { self.inflight = Math.max(0, self.inflight - 1); self.lastChange = Date.now(); e.reading--; e.readMs = Date.now() - e.startedAt; };
        Promise.resolve(p).then(done, done);
        return p;
      } });
    }
  },
  /** Milliseconds since anything was in flight (0 while something is). */
  idleFor() {
    return this.inflight > 0 ? 0 : Date.now() - this.lastChange;
  },
  /** What is in flight now, oldest first, as "GET url (1.2 s)" (at most n). @param {number} n */
  pending(n) {
    const now = Date.now();
    return this.entries.filter((e) => !e.released || e.reading > 0).slice(0, n)
      .map((e) => e.method + ' ' + clip(String(e.url), 120) + (e.released ? ' (its body, read by the app; ' : ' (') + ((now - e.startedAt) / 1000).toFixed(1) + ' s)');
  },
  /** @param {Headers|Record<string, string>|Array<[string, string]>|undefined|null} h */
  headers(h) {
    /** @type {Record<string, string>} */
    const out = {};
    if (!h) return out;
    const pairs = typeof (/** @type {any} */ (h)).forEach === 'function' && !Array.isArray(h)
      ? (() => { /** @type {Array<[string, string]>} */ const p = []; /** @type {Headers} */ (h).forEach((v, k) => p.push([k, v])); return p; })()
      : Array.isArray(h) ? h : Object.entries(h);
    for (const [k, v] of pairs) out[k.toLowerCase()] = SECRET_HEADERS.test(k) ? '[redacted]' : String(v).slice(0, 500);
    return out;
  },
  /** @param {any} body */
  body(body) {
    if (body == null) return undefined;
    if (typeof body === 'string') return keepBody(body, 4000);
    if (body instanceof URLSearchParams) return keepBody(body.toString(), 4000);
    if (typeof FormData !== 'undefined' && body instanceof FormData) return '[FormData]';
    if (typeof Blob !== 'undefined' && body instanceof Blob) return '[Blob ' + body.size + ' bytes]';
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return '[binary ' + body.byteLength + ' bytes]';
    return '[' + Object.prototype.toString.call(body).slice(8, -1) + ']';
  },
  install() {
    const self = this;
    const origFetch = window.fetch;
    if (origFetch) {
      window.fetch = async function (/** @type {any} */ input, /** @type {any} */ init) {
        const url = typeof input === 'string' ? input : input && input.url ? input.url : String(input);
        if (self.ours(url)) return origFetch.call(this, input, init);
        const e = self.start({ kind: 'fetch', method: String((init && init.method) || (input && input.method) || 'GET').toUpperCase(),
          url: new URL(url, location.href).href, requestHeaders: self.headers(init && init.headers), requestBody: self.body(init && init.body) });
        try {
          const res = await origFetch.call(this, input, init);
          e.status = res.status;
          e.ok = res.ok;
          e.responseHeaders = self.headers(res.headers);
          const type = res.headers.get('content-type') || '';
          const size = Number(res.headers.get('content-length') || NaN);
          e.responseSize = Number.isFinite(size) ? size : undefined;
          // an endless stream (SSE over fetch, NDJSON) is never read whole here: its copy would grow for ever
          if (/json|text|xml|javascript|x-www-form/.test(type) && !/event-stream|ndjson|jsonl/.test(type) && !(size > 262144)) {
            res.clone().text().then((t) => { e.responseBody = keepBody(t, BODY_KEPT); e.responseSize = e.responseSize || t.length; }, () => {});
          }
          self.end(e);
          self.trackBody(e, res);
          return res;
        } catch (err) {
          e.error = String(/** @type {any} */ (err) && /** @type {any} */ (err).message || err);
          self.end(e);
          throw err;
        }
      };
    }
    const XHR = window.XMLHttpRequest;
    if (XHR) {
      const open = XHR.prototype.open, send = XHR.prototype.send, setHeader = XHR.prototype.setRequestHeader;
      XHR.prototype.open = function (/** @type {string} */ method, /** @type {string|URL} */ url) {
        /** @type {any} */ (this).__dbgNet = { kind: 'xhr', method: String(method).toUpperCase(), url: new URL(String(url), location.href).href, requestHeaders: {} };
        return open.apply(this, /** @type {any} */ (arguments));
      };
      XHR.prototype.setRequestHeader = function (/** @type {string} */ k, /** @type {string} */ v) {
        const d = /** @type {any} */ (this).__dbgNet;
        if (d) d.requestHeaders[k.toLowerCase()] = SECRET_HEADERS.test(k) ? '[redacted]' : String(v).slice(0, 500);
        return setHeader.call(this, k, v);
      };
      XHR.prototype.send = function (/** @type {any} */ body) {
        const d = /** @type {any} */ (this).__dbgNet;
        if (d && !self.ours(d.url)) {
          const e = self.start(Object.assign(d, { requestBody: self.body(body) }));
          this.addEventListener('loadend', () => {
            e.status = this.status;
            e.ok = this.status >= 200 && this.status < 300;
            if (!this.status) e.error = 'network error or aborted';
            const t = this.responseType === '' || this.responseType === 'text' ? this.responseText : null;
            if (t != null) { e.responseBody = keepBody(t, BODY_KEPT); e.responseSize = t.length; }
            self.end(e);
          });
        }
        return send.call(this, body);
      };
    }
    const WS = window.WebSocket;
    if (WS) {
      const Wrapped = function (/** @type {string|URL} */ url, /** @type {any} */ protocols) {
        const ws = protocols === undefined ? new WS(url) : new WS(url, protocols);
        const href = String(url);
        if (!self.ours(href.replace(/^ws/, 'http'))) {
          const e = self.start({ kind: 'websocket', method: 'GET', url: href, messagesIn: 0, messagesOut: 0,
            protocol: protocols === undefined ? undefined : String(protocols) });
          // in flight until it opens: its messages are activity on an open channel, not a request waiting
          ws.addEventListener('open', () => { e.status = 101; e.ok = true; self.release(e); });
          ws.addEventListener('message', (ev) => { e.messagesIn++; e.lastMessageAt = Date.now(); devServerMessage(e, ev.data); });
          ws.addEventListener('close', (ev) => { e.closeCode = ev.code; self.end(e); });
          ws.addEventListener('error', () => { e.error = 'websocket error'; });
          const sendMsg = ws.send;
          ws.send = function (/** @type {any} */ data) { e.messagesOut++; return sendMsg.call(ws, data); };
        }
        return ws;
      };
      Wrapped.prototype = WS.prototype;
      Object.assign(Wrapped, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
      /** @type {any} */ (window).WebSocket = Wrapped;
    }
    const ES = window.EventSource;
    if (ES) {
      const Wrapped = function (/** @type {string|URL} */ url, /** @type {any} */ init) {
        const es = new ES(url, init);
        if (!self.ours(String(url))) {
          const e = self.start({ kind: 'eventsource', method: 'GET', url: new URL(String(url), location.href).href, messagesIn: 0 });
          es.addEventListener('open', () => { e.status = 200; e.ok = true; self.release(e); });
          es.addEventListener('message', () => { e.messagesIn++; e.lastMessageAt = Date.now(); });
          // closed for good: over; retrying: no longer a request the page waits for either
          es.addEventListener('error', () => { if (es.readyState === 2) { e.error = e.error || 'closed'; self.end(e); } else self.release(e); });
        }
        return es;
      };
      Wrapped.prototype = ES.prototype;
      Object.assign(Wrapped, { CONNECTING: 0, OPEN: 1, CLOSED: 2 });
      /** @type {any} */ (window).EventSource = Wrapped;
    }
  },
  /** Everything else the page loaded (documents, scripts, images, css), from resource timing. */
  resources() {
    const out = [];
    for (const r of /** @type {any[]} */ (performance.getEntriesByType('resource'))) {
      if (r.initiatorType === 'fetch' || r.initiatorType === 'xmlhttprequest' || this.ours(r.name)) continue;
      out.push({ kind: 'resource:' + r.initiatorType, url: r.name, status: r.responseStatus || undefined,
        ms: Math.round(r.duration), responseSize: r.transferSize || r.encodedBodySize || undefined });
    }
    return out;
  },
};
