// @ts-check
// dbg-bridge page client, part: transport: BridgeClient (WebSocket fast path, SSE + POST baseline). Shares one IIFE with the other parts (inject/__init__.py).

/** @typedef {{key: string, msg: ResultMsg|EventMsg, until: number, tries: number, timer: number}} OutboxEntry */

/** @param {number} ms */
const delay = (ms) => new Promise((r) => setTimeout(r, ms));
/** How long a document that is navigating away waits for its pagehide before it reconnects after all (a navigation
 *  that ends in a download or a 204 leaves the document in place). */
const LEAVE_GRACE_MS = 3000;
/** This document's identity, sent on every register: the bridge tells the document that asked for a navigation from
 * the one it brought (the same tab id answers for both), so a slow new document is waited for, never mistaken. */
const DOC_ID = Array.from(crypto.getRandomValues(new Uint8Array(9)), (b) => (b % 36).toString(36)).join('');

/** How this document was reached ('navigate', 'reload', 'back_forward', 'prerender'), '' when unknown. */
function navigationType() {
  try {
    const nav = /** @type {PerformanceNavigationTiming|undefined} */ (performance.getEntriesByType('navigation')[0]);
    return nav ? nav.type : '';
  } catch (_) {
    return '';
  }
}

class BridgeClient {
  /** @param {string} base @param {{channel: string, attach: string, shard: string, frames: () => FrameInfo[], onExec: (f: ExecFrame) => void,
   *   onCancel?: (f: CancelFrame) => void}} opts */
  constructor(base, opts) {
    this.base = base;
    this.opts = opts;
    /** @type {'idle'|'connecting'|'connected'|'stopped'} */ this.state = 'idle';
    /** @type {''|'ws'|'sse'} */ this.channel = '';
    /** A reloaded or returning document claims its id back (sessionStorage says so): set by loadId(), kept after a
     * register. */
    this.reclaim = false;
    /** @type {{instanceId: string, secret: string}|null} */ this.id = this.loadId();
    this.maxResult = 512000;
    /** @type {WebSocket|null} */ this.ws = null;
    /** @type {EventSource|null} */ this.es = null;
    this.postBase = base;
    /** Where the page channel may be reached, tried in turn when this one cannot be: a team bridge's replicas (the
     * register answer lists them), else just `base`. */
    this.bases = [base];
    this.attempt = 0;
    /** When the WebSocket last failed to open (0: never). SSE is used until WS_RETRY_MS later, then WS is tried again. */
    this.wsFailedAt = 0;
    this.gen = 0;
    /** Results and events the bridge has not acknowledged yet, by outbox key ('r:' requestId, 'e:' eventId):
     * retried until it does, or the call is over (results), or EVENT_RETRY_FOR_MS passed (events). */
    /** @type {Map<string, OutboxEntry>} */ this.outbox = new Map();
    this.eventSeq = 0;
    /** Until when a lost channel is not reopened: this document is navigating away (see leaving()). */
    this.leavingUntil = 0;
    /** Where this document is navigating to, when the Navigation API said (sent with bye). @type {string|undefined} */
    this.leavingTo = undefined;
    this.warned = false;
  }

  loadId() {
    try {
      const raw = sessionStorage.getItem(STORAGE_KEY);
      // The claim matters when the bridge still sees the old document's channel as live (an SSE page's bye is a
      // beacon that can arrive after the new document's register): without it the tab is taken for a duplicated
      // one and renamed, and calls to its pageId wait for it in vain. A reload is this tab's own document coming
      // back even if no leaving mark was written (the old document's pagehide did not run, or ran late).
      this.reclaim = sessionStorage.getItem(LEAVING_KEY) === '1' || navigationType() === 'reload';
      sessionStorage.removeItem(LEAVING_KEY);
      const v = raw ? JSON.parse(raw) : null;
      return v && typeof v.instanceId === 'string' && typeof v.secret === 'string' ? v : null;
    } catch (_) {
      return null;
    }
  }

  get pageId() {
    return this.id ? this.id.instanceId : null;
  }

  /** Register (or renew), then open the fastest channel that works. Retries by itself forever. */
  async connect() {
    if (this.state === 'stopped') return;
    const gen = ++this.gen;
    this.state = 'connecting';
    for (;;) {
      let registered = false;
      try {
        await this.register();
        registered = true;
        if (gen !== this.gen) return;
        const wsRested = Date.now() - this.wsFailedAt > WS_RETRY_MS;
        const useWs = this.opts.channel === 'ws' || (this.opts.channel === 'auto' && wsRested && typeof WebSocket !== 'undefined');
        if (useWs) {
          const ok = await this.openWs(gen).catch(() => false); // a throwing WebSocket (proxy, policy) counts as failed
          if (ok) return;
          if (this.opts.channel === 'auto') this.wsFailedAt = Date.now();
        } else {
          if (await this.openSse(gen)) return;
        }
      } catch (_) { /* bridge not up yet: retry below */ }
      if (gen !== this.gen || this.stopped()) return;
      if (!registered) this.nextBase(); // this replica is gone (or refuses): the next one claims the same pageId
      this.attempt++;
      await delay(Math.min(2000, 100 * Math.pow(2, Math.min(this.attempt, 5))));
    }
  }

  /** Move to the next page-channel URL the bridge listed (a team bridge's replica that is still up). */
  nextBase() {
    if (this.bases.length < 2) return;
    this.base = this.bases[(this.bases.indexOf(this.base) + 1) % this.bases.length];
    this.postBase = this.base;
  }

  async register() {
    const loc = location;
    /** @type {RegisterRequest} */
    const req = {
      v: PROTOCOL_VERSION,
      instanceId: this.id ? this.id.instanceId : null,
      secret: this.id ? this.id.secret : null,
      reclaim: this.reclaim,
      url: loc.href.slice(0, 4000),
      title: (document.title || '').slice(0, 4000),
      origin: loc.origin,
      port: loc.port ? Number(loc.port) : null,
      attach: this.opts.attach,
      frames: this.opts.frames(),
      complete: document.readyState !== 'loading',
      doc: DOC_ID,
      generation: dev.top ? dev.generation : null,
      dev: dev.top ? devInfo() : null,
    };
    const res = await fetch(this.base + '/bridge/register', {
      method: 'POST', body: JSON.stringify(req), headers: { 'Content-Type': 'text/plain' }, cache: 'no-store',
    });
    if (!res.ok) {
      if ((res.status === 409 || res.status === 403) && !this.warned) { // another protocol version, or another origin
        this.warned = true;
        res.json().then((e) => console.warn('dbg-bridge: ' + (e && e.error && e.error.message)), () => {});
      }
      throw new Error('register failed: HTTP ' + res.status);
    }
    /** @type {RegisterReply} */
    const reply = await res.json();
    this.id = { instanceId: reply.instanceId, secret: reply.secret };
    this.reclaim = true; // from now on this id is ours: reconnects claim it back
    this.maxResult = reply.maxResult;
    if (reply.replicas && reply.replicas.length) this.bases = Array.from(new Set([this.base, ...reply.replicas]));
    try { sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.id)); } catch (_) { /* storage off */ }
  }

  query() {
    const id = /** @type {{instanceId: string, secret: string}} */ (this.id);
    return '?i=' + encodeURIComponent(id.instanceId) + '&t=' + encodeURIComponent(id.secret);
  }

  /** @param {number} gen @returns {Promise<boolean>} */
  openWs(gen) {
    return new Promise((resolve) => {
      let opened = false;
      const ws = new WebSocket(this.base.replace(/^http/, 'ws') + '/bridge/ws' + this.query());
      // A blocked WebSocket (a proxy, a policy) fails fast with an error; a slow handshake (many tabs opening at once
      // on a busy machine) only needs time, so the fallback to SSE waits generously.
      const timer = setTimeout(() => { if (!opened) { ws.close(); resolve(false); } }, WS_OPEN_TIMEOUT_MS);
      ws.onopen = () => {
        opened = true;
        clearTimeout(timer);
        this.ws = ws;
        this.connected('ws');
        resolve(true);
      };
      ws.onmessage = (ev) => this.onDown(String(ev.data));
      ws.onclose = (ev) => {
        clearTimeout(timer);
        if (ev.code === 1001) this.leaving(); // "going away": the browser closed it because this document is leaving
        if (this.ws === ws) this.ws = null;
        if (!opened) { resolve(ev.code === 4401); if (ev.code === 4401) this.lost(gen); return; }
        this.lost(gen);
      };
    });
  }

  /** The SSE stream gets its own *.localhost host per tab so 200 tabs do not share 6 connections. */
  sseBase() {
    const u = new URL(this.base);
    const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost';
    if (this.opts.shard === 'off' || !loopback || !this.id) return this.base;
    return u.protocol + '//dbg-' + this.id.instanceId + '.localhost' + (u.port ? ':' + u.port : '');
  }

  /** @param {number} gen @returns {Promise<boolean>} */
  openSse(gen) {
    const tryBase = (/** @type {string} */ base) => new Promise((resolve) => {
      const es = new EventSource(base + '/bridge/events' + this.query());
      let opened = false;
      es.onopen = () => {
        opened = true;
        this.es = es;
        this.postBase = base;
        this.connected('sse');
        resolve(true);
      };
      es.onmessage = (ev) => this.onDown(String(ev.data));
      es.onerror = () => {
        es.close(); // never let EventSource retry on its own: re-register first
        if (this.es === es) this.es = null;
        if (!opened) resolve(false);
        else this.lost(gen);
      };
    });
    const sharded = this.sseBase();
    return tryBase(sharded).then((ok) => (ok || sharded === this.base ? ok : tryBase(this.base)));
  }

  /** @param {'ws'|'sse'} channel */
  connected(channel) {
    this.state = 'connected';
    this.channel = channel;
    this.attempt = 0;
    this.leavingUntil = 0;
    window.dispatchEvent(new CustomEvent('dbg:status', { detail: { state: 'connected', channel, pageId: this.pageId } }));
    for (const entry of Array.from(this.outbox.values())) this.deliver(entry); // what the last channel left unacked
  }

  /** @param {number} gen */
  lost(gen) {
    if (gen !== this.gen || this.state === 'stopped') return;
    this.state = 'connecting';
    this.channel = '';
    window.dispatchEvent(new CustomEvent('dbg:status', { detail: { state: 'connecting' } }));
    const wait = this.leavingUntil - Date.now();
    if (wait > 0) setTimeout(() => { if (gen === this.gen) void this.connect(); }, wait);
    else void this.connect();
  }

  /**
   * A navigation away from this document has started. Firefox closes the document's WebSocket (code 1001) and
   * EventSource right then, while the document still runs until the next one arrives: reconnecting now would put the
   * leaving document back on the page's id (answering as the old page, then dropping again). pagehide (bye) ends it.
   */
  leaving() {
    this.leavingUntil = Date.now() + LEAVE_GRACE_MS;
    this.resendForUnload();
  }

  /** @param {string} text */
  onDown(text) {
    let msg;
    try { msg = JSON.parse(text); } catch (_) { return; }
    if (!msg) return;
    if (msg.type === 'exec') this.opts.onExec(/** @type {ExecFrame} */ (msg));
    else if (msg.type === 'ack') {
      for (const rid of Array.isArray(msg.requestIds) ? msg.requestIds : []) this.acked('r:' + rid);
      for (const eid of Array.isArray(msg.eventIds) ? msg.eventIds : []) this.acked('e:' + eid);
    }
    else if (msg.type === 'cancel' && this.opts.onCancel) this.opts.onCancel(/** @type {CancelFrame} */ (msg));
  }

  /**
   * Send a result and keep it until the bridge acknowledges it (an ack frame on the WebSocket, any HTTP answer but
   * a 5xx to the POST), retried with backoff on whichever channel is open, for as long as the call can still be
   * waiting.
   * @param {ResultMsg} msg @param {number} waitMs how long the bridge waits for this result at most
   */
  sendResult(msg, waitMs) {
    this.enqueue('r:' + msg.requestId, msg, waitMs + RESULT_SLACK_MS);
  }

  /**
   * Send one of the human's events (an answer, a consent decision, a message, a pick) the same way: it gets an
   * eventId, is retried until acknowledged (across a network blip or a reconnect), and the bridge takes it once.
   * @param {EventMsg} msg
   */
  sendEvent(msg) {
    const eventId = (this.pageId || 'p') + '-' + Date.now().toString(36) + '-' + (++this.eventSeq).toString(36) + '-' +
      Math.random().toString(36).slice(2, 8);
    const events = Array.from(this.outbox.keys()).filter((k) => k.startsWith('e:'));
    if (events.length >= EVENT_OUTBOX_MAX) this.acked(events[0]); // bounded: the oldest gives way
    this.enqueue('e:' + eventId, Object.assign({}, msg, { eventId }), EVENT_RETRY_FOR_MS);
  }

  /** @param {string} key @param {ResultMsg|EventMsg} msg @param {number} forMs */
  enqueue(key, msg, forMs) {
    const entry = { key, msg, until: Date.now() + forMs, tries: 0, timer: 0 };
    const old = this.outbox.get(key);
    if (old) clearTimeout(old.timer);
    this.outbox.set(key, entry);
    this.deliver(entry);
  }

  /** @param {string} key */
  acked(key) {
    const entry = this.outbox.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.outbox.delete(key);
  }

  /** One delivery attempt of an unacknowledged message; schedules the next. @param {OutboxEntry} entry */
  deliver(entry) {
    const key = entry.key;
    if (this.outbox.get(key) !== entry) return;
    clearTimeout(entry.timer);
    if (Date.now() > entry.until || this.stopped()) { this.outbox.delete(key); return; }
    if (!this.id) return; // not registered yet: connected() delivers it
    const retry = (/** @type {number} */ ms) => {
      entry.timer = window.setTimeout(() => this.deliver(entry), Math.min(RESULT_RETRY_MAX_MS, ms * Math.pow(2, Math.min(entry.tries, 6))));
      entry.tries++;
    };
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      try { this.ws.send(JSON.stringify(entry.msg)); } catch (_) { /* closing: the next attempt takes the other path */ }
      retry(RESULT_ACK_WAIT_MS);
      return;
    }
    // No WebSocket (SSE, or the socket is reconnecting): POST it; the bridge takes results and events on either path.
    void this.post(entry, this.leavingUntil > Date.now()).then((ok) => { if (!ok) retry(RESULT_RETRY_MS); });
  }

  /**
   * POST one outbox message; true once the bridge answered anything but a 5xx (that acknowledges it). `keepalive`
   * lets the request outlive this document, but Chromium routes such a fetch through its browser process (~1 ms more
   * of its CPU per call), so it is used only once this document is leaving: see resendForUnload().
   * @param {OutboxEntry} entry @param {boolean} keep @returns {Promise<boolean>}
   */
  post(entry, keep) {
    const id = /** @type {{instanceId: string, secret: string}} */ (this.id);
    const body = JSON.stringify(Object.assign({ instanceId: id.instanceId, secret: id.secret }, entry.msg));
    return fetch(this.postBase + '/bridge/result', { method: 'POST', body, headers: { 'Content-Type': 'text/plain' }, keepalive: keep && body.length < 60000 })
      .then((res) => { if (res.status < 500) this.acked(entry.key); return res.status < 500; },
        () => false); // offline, or the bridge is restarting
  }

  /** This document is going away: POST again, with keepalive, what the bridge has not acknowledged (a POST in flight
   *  without keepalive is cancelled with the document; the bridge acknowledges a copy and takes it once). */
  resendForUnload() {
    if (!this.id || (this.ws && this.ws.readyState === WebSocket.OPEN)) return;
    for (const entry of Array.from(this.outbox.values())) void this.post(entry, true);
  }

  /** Send one message up once, best effort (frame lists: the next connect sends them again): on the WebSocket, else
   * as a text/plain POST (no CORS preflight). Results and the human's events go through the outbox instead.
   * @param {UpMessage} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return;
    }
    if (!this.id) return;
    const body = JSON.stringify(Object.assign({ instanceId: this.id.instanceId, secret: this.id.secret }, msg));
    fetch(this.postBase + '/bridge/result', { method: 'POST', body, headers: { 'Content-Type': 'text/plain' }, keepalive: body.length < 60000 })
      .catch(() => { /* the bridge is gone; the reconnect loop takes over */ });
  }

  /** Tell the bridge we are unloading so waiting calls fail now, and mark the tab so it reclaims its id. */
  bye() {
    this.gen++; // this document is done: no reconnect from it (pageshow from the back/forward cache reconnects)
    try { sessionStorage.setItem(LEAVING_KEY, '1'); } catch (_) { /* storage off */ }
    if (!this.id) return;
    this.resendForUnload();
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: 'bye', to: this.leavingTo }));
      return;
    }
    const body = JSON.stringify({ instanceId: this.id.instanceId, secret: this.id.secret, type: 'bye', to: this.leavingTo });
    try { navigator.sendBeacon(this.postBase + '/bridge/result', new Blob([body], { type: 'text/plain' })); } catch (_) { /* best effort */ }
  }

  /** True once stop() was called (a method, so type narrowing of `state` does not hide the change). */
  stopped() {
    return this.state === 'stopped';
  }

  stop() {
    this.state = 'stopped';
    this.gen++;
    if (this.ws) this.ws.close();
    if (this.es) this.es.close();
    this.ws = null;
    this.es = null;
  }
}
