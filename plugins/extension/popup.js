// @ts-check
/**
 * The popup (also the options page): the current tab's site on/off, its connection state, the bridge URL, and the
 * list of enabled sites. `popup.html?tab=<id>` shows that tab instead of the active one (tests open it as a page).
 */
import { load, originOf, setBridge, setSite } from './sites.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const enabled = /** @type {HTMLInputElement} */ ($('enabled'));
const bridgeInput = /** @type {HTMLInputElement} */ ($('bridge'));

/** @returns {Promise<chrome.tabs.Tab|null>} */
async function currentTab() {
  const asked = new URLSearchParams(location.search).get('tab');
  if (asked) return chrome.tabs.get(Number(asked)).catch(() => null);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab || null;
}

const LABELS = {
  off: 'Not attached (reload the tab after enabling).',
  loading: 'Loading the client from the bridge…',
  connecting: 'Client loaded, connecting to the bridge…',
  connected: 'Connected',
  unreachable: 'The client did not load: is the bridge running at this URL, and does the page\'s CSP allow it?',
  frame: 'Attached through the parent page.',
};

/** @param {chrome.tabs.Tab|null} tab @param {boolean} on */
async function showState(tab, on) {
  const el = $('state');
  /** @type {Record<string, any>} */
  let st = { state: on ? 'off' : 'disabled' };
  if (tab && tab.id != null && on) {
    st = await chrome.tabs.sendMessage(tab.id, { type: 'status' }, { frameId: 0 }).catch(() => ({ state: 'off' })) || { state: 'off' };
  }
  el.dataset.state = String(st.state);
  if (!on) el.textContent = 'Off for this site.';
  else if (st.state === 'connected') el.textContent = 'Connected as ' + st.pageId + ' (' + st.channel + ') to ' + st.bridge;
  else el.textContent = /** @type {any} */ (LABELS)[st.state] || String(st.message || st.state);
}

async function render() {
  const tab = await currentTab();
  const origin = tab ? originOf(tab.url) : null;
  const { bridge, origins } = await load();
  if (document.activeElement !== bridgeInput) bridgeInput.value = bridge;
  $('origin').textContent = origin || 'This page cannot get the client (only http and https pages can).';
  enabled.disabled = !origin;
  enabled.checked = !!origin && origins.includes(origin);
  await showState(tab, enabled.checked);
  const list = $('sites');
  list.replaceChildren(...origins.map((o) => {
    const li = document.createElement('li');
    const remove = document.createElement('button');
    remove.textContent = 'Remove';
    remove.addEventListener('click', async () => { await setSite(o, false); await render(); });
    li.append(o, remove);
    return li;
  }));
  if (!origins.length) list.replaceChildren(Object.assign(document.createElement('li'), { textContent: 'none yet' }));
  return { tab, origin };
}

enabled.addEventListener('change', async () => {
  const tab = await currentTab();
  const origin = tab ? originOf(tab.url) : null;
  if (!tab || tab.id == null || !origin) return;
  await setSite(origin, enabled.checked);
  await chrome.tabs.reload(tab.id); // on: the content script runs from the start; off: the client goes away
  await render();
});

$('bridge-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  try {
    const saved = await setBridge(bridgeInput.value);
    bridgeInput.value = saved;
    $('bridge-note').textContent = 'Saved. Reload enabled tabs to use it.';
  } catch (e) {
    $('bridge-note').textContent = String(/** @type {Error} */ (e).message);
  }
});

void render();
setInterval(() => { void render(); }, 1000); // the connection state changes while the popup is open
