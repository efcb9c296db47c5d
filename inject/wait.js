// @ts-check
// dbg-bridge page client, part: waiting. Shares one IIFE with the other parts (inject/__init__.py).

/** Poll a condition on every DOM change (and every 50 ms), bounded by timeoutMs, until `signal` aborts.
 * @param {() => any} check @param {number} timeoutMs @param {AbortSignal} [signal] */
function waitFor(check, timeoutMs, signal) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let done = false;
    const finish = (/** @type {any} */ v, /** @type {any} */ err) => {
      if (done) return;
      done = true;
      mo.disconnect();
      clearInterval(iv);
      clearTimeout(to);
      if (signal) signal.removeEventListener('abort', onAbort);
      if (err) reject(err); else resolve({ met: true, ms: Date.now() - started, value: v });
    };
    const tick = () => {
      try { const v = check(); if (v) finish(v, null); } catch (e) { finish(null, e); }
    };
    const mo = new MutationObserver(tick);
    mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const iv = setInterval(tick, 50);
    const to = setTimeout(() => finish(null, new DbgError('wait_timeout', 'The condition was not met within ' + timeoutMs / 1000 + ' s.')), timeoutMs);
    const onAbort = () => finish(null, new DbgError('cancelled', 'The wait was cancelled.'));
    if (signal) { if (signal.aborted) { onAbort(); return; } signal.addEventListener('abort', onAbort, { once: true }); }
    tick();
  });
}

/** page_wait networkIdle: nothing in flight for this long (Playwright's networkidle). A fetch or XHR is in flight
 * until its answer's headers come (and again while the app reads its body whole), a WebSocket or EventSource until
 * it opens: a dev server's HMR socket, open for the page's whole life, never keeps a page from being idle. */
const NETWORK_IDLE_MS = 500;

/** How long the DOM must be still, and at most how long to wait for that, after a document loaded. */
const QUIET_MS = 100;
const QUIET_CAP_MS = 1000;

/** Wait for the document's load (or DOMContentLoaded), then for a quiet DOM (no mutation for QUIET_MS, at most
 * QUIET_CAP_MS): what a navigation's answer waits for. @param {string} state @param {number} timeoutMs @param {AbortSignal} [signal] */
async function waitLoaded(state, timeoutMs, signal) {
  const started = Date.now();
  const ready = () => (state === 'load' ? document.readyState === 'complete' : document.readyState !== 'loading');
  if (!ready()) await waitFor(ready, timeoutMs, signal);
  await new Promise((r) => setTimeout(r, 0)); // the load event's handlers run in the task that set readyState
  let last = Date.now();
  const quietFrom = last;
  const mo = new MutationObserver(() => { last = Date.now(); });
  mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  try {
    while (Date.now() - last < QUIET_MS && Date.now() - quietFrom < QUIET_CAP_MS && Date.now() - started < timeoutMs) {
      if (signal && signal.aborted) throw new DbgError('cancelled', 'The wait was cancelled.');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    mo.disconnect();
  }
  const quiet = Date.now() - last >= QUIET_MS;
  return { met: true, ms: Date.now() - started, value: { readyState: document.readyState, quiet, quietMs: Date.now() - quietFrom } };
}
