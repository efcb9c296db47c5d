// @ts-check
/**
 * Shared by the popup and the service worker: which origins get the client, and the bridge URL.
 * Both live in chrome.storage.local (extension storage: pages and other extensions cannot read it).
 */

export const DEFAULT_BRIDGE = 'http://127.0.0.1:7878';
const SCRIPT_ID = 'dbg-bridge-client';

/** @returns {Promise<{bridge: string, origins: string[]}>} */
export async function load() {
  const got = await chrome.storage.local.get({ bridge: DEFAULT_BRIDGE, origins: [] });
  return { bridge: String(got.bridge), origins: Array.isArray(got.origins) ? got.origins.map(String) : [] };
}

/** The http(s) origin of a URL, or null for pages the extension does not inject into (chrome://, file://…). @param {string|undefined} url */
export function originOf(url) {
  try {
    const u = new URL(String(url));
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch (_) {
    return null;
  }
}

/** A bridge URL as typed by the human -> its origin, or an Error saying what is wrong. @param {string} text */
export function parseBridge(text) {
  const origin = originOf(text.trim());
  if (!origin) throw new Error('The bridge URL must be http(s)://host:port, e.g. ' + DEFAULT_BRIDGE);
  return origin;
}

/** Make the registered content script match exactly these origins (none: unregistered). @param {string[]} origins */
export async function register(origins) {
  const have = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (have.length) await chrome.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
  if (!origins.length) return;
  await chrome.scripting.registerContentScripts([{
    id: SCRIPT_ID,
    matches: origins.map((o) => o + '/*'),
    js: ['content.js'],
    runAt: 'document_start',
    allFrames: true, // frames of an enabled origin inside pages of other origins get their own client
    persistAcrossSessions: true,
  }]);
}

/** Turn injection on or off for one origin. @param {string} origin @param {boolean} on */
export async function setSite(origin, on) {
  const { origins } = await load();
  const next = on ? Array.from(new Set(origins.concat(origin))) : origins.filter((o) => o !== origin);
  await chrome.storage.local.set({ origins: next });
  await register(next);
  return next;
}

/** @param {string} text */
export async function setBridge(text) {
  const bridge = parseBridge(text);
  await chrome.storage.local.set({ bridge });
  return bridge;
}
