// @ts-check
/**
 * dbg-bridge page client. Plain JS, no build step: load it with
 *   <script src="http://127.0.0.1:7878/inject/dbg_client.js"></script>
 * Options (data-* on the script tag, or window.__DBG_CONFIG): bridge (URL), channel ('auto' | 'ws' | 'sse'),
 * attach (label shown in page_list), shard ('auto' | 'off': give each tab's SSE stream its own *.localhost host).
 *
 * Sections: constants & types, result rendering, COMMANDS, frame router, transport (BridgeClient), boot.
 */
// ---- constants & types --------------------------------------------------------------------------------

const PROTOCOL_VERSION = 1;
const VERSION = '0.1.0';
const STORAGE_KEY = '__dbg_id';
const LEAVING_KEY = '__dbg_leaving';
const MAX_STRING = 100000;
const MAX_ITEMS = 1000;
const MAX_DEPTH = 12;
const FRAME_READY_WAIT_MS = 5000;
/** A tab that fell back to SSE tries the WebSocket again on a reconnect this long after the failure. */
const WS_RETRY_MS = 60000;
/** How long a WebSocket may take to open before the tab falls back to SSE. */
const WS_OPEN_TIMEOUT_MS = 10000;
/** Unacknowledged results: first retry after a failed POST, the wait for a WebSocket ack, the longest pause, and
 * how long past the call's own timeout a result is still worth sending. */
const RESULT_RETRY_MS = 150;
const RESULT_ACK_WAIT_MS = 1000;
const RESULT_RETRY_MAX_MS = 1000;
const RESULT_SLACK_MS = 2000;
/** How long the human's events (answers, consent, messages, picks) are retried before they are given up, and how
 * many may wait at once (the oldest is dropped beyond that). */
const EVENT_RETRY_FOR_MS = 600000;
const EVENT_OUTBOX_MAX = 200;

/**
 * The wire shapes (FrameInfo, RegisterRequest, ExecFrame, ResultMsg, …, CommandName) are generated from
 * bridge/pages/protocol.py into command_types.js (PROTOCOL_VERSION above); these are the client's own.
 * @typedef {{__dbg: 1, type: string, payload?: any, requestId?: string, _f?: string}} Envelope
 * @typedef {{frameId: string, role: 'host'|'frame', maxResult: number, signal?: AbortSignal}} CommandContext
 * @typedef {(params: Record<string, any>, ctx: CommandContext) => Promise<any>} Command
 */


const script = /** @type {HTMLScriptElement|null} */ (document.currentScript);
const scriptUrl = script && script.src ? new URL(script.src, location.href) : null;
const userConfig = /** @type {any} */ (window).__DBG_CONFIG || {};
/** @param {string} name @param {string} fallback */
function option(name, fallback) {
  const fromTag = script && script.dataset ? script.dataset[name] : undefined;
  const fromQuery = scriptUrl ? scriptUrl.searchParams.get(name) : null;
  return String(userConfig[name] || fromTag || fromQuery || fallback);
}
const BRIDGE = option('bridge', scriptUrl ? scriptUrl.origin : 'http://127.0.0.1:7878').replace(/\/+$/, '');
const CLIENT_URL = scriptUrl ? scriptUrl.href : BRIDGE + '/inject/dbg_client.js';
/** Set when the dbg-bridge Chrome extension loaded this client: the per-load nonce of its content script. */
const EXT_NONCE = (script && script.dataset && script.dataset.dbgExt) || '';

/** An error with a code the bridge shows the agent. */
class DbgError extends Error {
  /** @param {string} code @param {string} message @param {number} [size] */
  constructor(code, message, size) {
    super(message);
    this.code = code;
    this.size = size;
  }
}
