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
