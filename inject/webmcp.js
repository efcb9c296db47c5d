// @ts-check
// dbg-bridge page client, part: webmcp: the tools this document registers through WebMCP (`document.modelContext`,
// formerly `navigator.modelContext`), native or from the app's own polyfill (@mcp-b/global,
// @mcp-b/webmcp-polyfill). Only read and called through the API's own getTools()/executeTool(): nothing here installs,
// wraps or replaces a context (a page without one has none). Shares one IIFE with the other parts (inject/__init__.py).

/** At most this many tools of a tab (every frame) are sent; `total` says how many there were. */
const WEBMCP_MAX_TOOLS = 128;
/** A tool's input schema as JSON text at most (chars), and its description; larger ones are sent as an error. */
const WEBMCP_MAX_SCHEMA = 32768;
const WEBMCP_MAX_DESCRIPTION = 4000;
/** The tab's whole list as JSON at most (chars): it travels in one message. */
const WEBMCP_MAX_CATALOG = 400000;
/** How long the host waits for a frame's list. */
const WEBMCP_FRAME_WAIT_MS = 3000;

/**
 * One tool as the bridge gets it: the schema as JSON text (the bridge parses and bounds it), or an error saying why
 * it is left out.
 * @typedef {{name: string, title?: string, description?: string, schema?: string, annotations?: Record<string, any>,
 *            frameId?: string, error?: {code: string, message: string}}} WebTool
 */

const webmcp = {
  /** The context last seen (document.modelContext, else navigator.modelContext). @type {any} */ ctx: null,
  /** What getTools() answered last: executeTool() takes these descriptors. @type {any[]} */ seen: [],
  /** The frames (their windows) that said they have a WebMCP context: only they are asked for tools. @type {WeakSet<Window>} */
  reporting: new WeakSet(),
  /** Set at boot: what to do when this document's tools change (host: resend the tab's list; frame: tell the host). @type {(() => void)|null} */
  onChange: null,
  timer: 0,

  /** The page's WebMCP context, if it has one (reading never creates one). */
  context() {
    try {
      const d = /** @type {any} */ (document), n = /** @type {any} */ (navigator);
      return d.modelContext || n.modelContext || null;
    } catch (_) { return null; }
  },

  /** Follow the current context: an app may set one up after this client loaded, or replace it (@mcp-b/global wraps
   * the native one or the polyfill's); its `toolchange` events say when its tools change. */
  watch() {
    const ctx = this.context();
    if (ctx === this.ctx) return;
    this.ctx = ctx;
    if (ctx && typeof ctx.addEventListener === 'function') {
      try { ctx.addEventListener('toolchange', () => this.changed()); } catch (_) { /* a context without events */ }
    }
    this.changed();
  },

  /** This document's tools changed: tell whoever listens, once per burst. */
  changed() {
    if (this.timer || !this.onChange) return;
    this.timer = window.setTimeout(() => { this.timer = 0; if (this.onChange) this.onChange(); }, 50);
  },

  /** Which implementation it is: 'native', 'polyfill', 'none'. @param {any} ctx */
  kind(ctx) {
    if (!ctx) return 'none';
    try {
      return typeof ctx.getTools === 'function' && /\[native code\]/.test(Function.prototype.toString.call(ctx.getTools)) ? 'native' : 'polyfill';
    } catch (_) { return 'polyfill'; }
  },

  /** This document's own tools. @returns {Promise<{api: string, tools: WebTool[]}>} */
  async local() {
    this.watch();
    const ctx = this.ctx;
    if (!ctx || typeof ctx.getTools !== 'function') return { api: ctx ? 'unsupported' : 'none', tools: [] };
    const raw = await ctx.getTools();
    this.seen = Array.isArray(raw) ? raw : [];
    return { api: this.kind(ctx), tools: this.seen.slice(0, WEBMCP_MAX_TOOLS + 1).map(describeTool) };
  },

  /** The tab's tools (host): its own, then each same-origin frame's, with their frameId; at most WEBMCP_MAX_TOOLS. */
  async catalog() {
    const own = await this.local().catch((e) => ({ api: 'error: ' + String(e && e.message || e).slice(0, 200), tools: [] }));
    /** @type {WebTool[]} */
    const all = own.tools.map((t) => Object.assign(t, { frameId: 'host' }));
    let total = own.tools.length === WEBMCP_MAX_TOOLS + 1 ? this.seen.length : own.tools.length;
    const apis = { host: own.api };
    for (const entry of router.frames.values()) {
      if (!entry.ready || !sameOrigin(entry.el) || !entry.win || !this.reporting.has(entry.win)) continue;
      const out = await router.exec(entry.id, 'tools', {}, WEBMCP_FRAME_WAIT_MS);
      if (!out.ok || !out.result) continue;
      /** @type {any} */ (apis)[entry.id] = out.result.api;
      for (const t of out.result.tools) all.push(Object.assign(t, { frameId: entry.id }));
      total += Number(out.result.total) || out.result.tools.length;
    }
    const kept = [];
    let size = 0;
    for (const t of all.slice(0, WEBMCP_MAX_TOOLS)) {
      size += (t.schema || '').length + (t.description || '').length + 200;
      if (size > WEBMCP_MAX_CATALOG) break;
      kept.push(t);
    }
    return { api: apis, tools: kept, total };
  },

  /** Run one of this document's tools through the API's executeTool; its answer as JSON text (or plain text).
   * @param {string} name @param {Record<string, any>} args @param {AbortSignal|undefined} signal */
  async call(name, args, signal) {
    this.watch();
    const ctx = this.ctx;
    if (!ctx) throw new DbgError('no_webmcp', 'This document has no WebMCP context (document.modelContext) any more. Call page_tools.');
    let tool = this.seen.find((t) => t && t.name === name);
    if (!tool) { await this.local(); tool = this.seen.find((t) => t && t.name === name); }
    if (!tool) throw new DbgError('unknown_page_tool', 'This page has no tool ' + JSON.stringify(name) + ' now (it was unregistered, or the page reloaded). Call page_tools for the current list.');
    if (typeof ctx.executeTool !== 'function') {
      throw new DbgError('not_callable', "This page's WebMCP implementation lists its tools but offers no executeTool(), so the bridge cannot call them. Use page_act on the page's own controls instead.");
    }
    // Chromium's native executeTool takes the arguments as an object; the polyfills (Chromium's earlier form) as JSON text.
    const input = this.kind(ctx) === 'native' ? args : JSON.stringify(args);
    let out;
    try {
      out = await ctx.executeTool(tool, input, { signal });
    } catch (e) {
      if (signal && signal.aborted) throw new DbgError('cancelled', 'The call was cancelled (or its time ran out) while the page tool ran.');
      const err = /** @type {any} */ (e);
      throw new DbgError('page_tool_failed', 'The page tool ' + JSON.stringify(name) + ' failed: ' + String(err && err.name ? err.name + ': ' + err.message : err).slice(0, 2000));
    }
    return out == null ? { json: 'null' } : typeof out === 'string' ? { json: out } : { json: JSON.stringify(out) };
  },
};

/** One descriptor from getTools() as the bridge gets it, sizes checked here first (the bridge checks them again).
 * @param {any} t @returns {WebTool} */
function describeTool(t) {
  const name = String(t && t.name || '').slice(0, 200);
  try {
    let schema = t.inputSchema == null ? '{"type":"object","properties":{}}' : typeof t.inputSchema === 'string' ? t.inputSchema : JSON.stringify(t.inputSchema);
    if (schema.length > WEBMCP_MAX_SCHEMA) {
      return { name, error: { code: 'schema_too_large', message: 'its input schema is ' + schema.length + ' characters of JSON, over ' + WEBMCP_MAX_SCHEMA } };
    }
    const description = String(t.description == null ? '' : t.description);
    if (description.length > WEBMCP_MAX_DESCRIPTION) {
      return { name, error: { code: 'description_too_long', message: 'its description is ' + description.length + ' characters, over ' + WEBMCP_MAX_DESCRIPTION } };
    }
    /** @type {Record<string, any>} */
    const annotations = {};
    if (t.annotations && typeof t.annotations === 'object') {
      for (const k of Object.keys(t.annotations).slice(0, 16)) {
        const v = t.annotations[k];
        if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') annotations[k.slice(0, 64)] = typeof v === 'string' ? v.slice(0, 200) : v;
      }
    }
    return { name, title: String(t.title || '').slice(0, 200), description, schema, annotations };
  } catch (e) {
    return { name, error: { code: 'bad_schema', message: 'its input schema cannot be read as JSON (' + String(e).slice(0, 200) + ')' } };
  }
}
