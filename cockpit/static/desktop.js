// @ts-check
// The cockpit's desktop tab: a live view while the tab is open, and the input consent switch (attached displays).
// Loaded before cockpit.js, which hands it the helpers it needs.
'use strict';

/** @param {{$: (id: string) => HTMLElement, post: (path: string, body?: object) => Promise<any>,
 *           setText: (node: Element, text: string) => void, state: () => {desktop?: any}}} deps */
// eslint-disable-next-line no-unused-vars
function cockpitDesktop({ $, post, setText, state }) {
  const desktopPanel = document.getElementById('panel-desktop');
  const consentSwitch = /** @type {HTMLInputElement|null} */ (document.getElementById('consent-switch'));
  let viewing = false;
  let frames = 0;

  /** One screenshot a second while the tab shows (a canvas: the CSP allows no blob: images). */
  async function desktopLoop() {
    if (viewing || !desktopPanel) return;
    viewing = true;
    while (!desktopPanel.hidden && !document.hidden) {
      const canvas = /** @type {HTMLCanvasElement} */ ($('desktop-view'));
      try {
        const res = await fetch('/cockpit/desktop.png?n=' + frames, { credentials: 'same-origin', cache: 'no-store' });
        if (res.ok) {
          const bitmap = await createImageBitmap(await res.blob());
          canvas.width = bitmap.width;
          canvas.height = bitmap.height;
          /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')).drawImage(bitmap, 0, 0);
          bitmap.close();
          frames += 1;
          canvas.dataset.frames = String(frames);
        }
        canvas.hidden = !res.ok;
        $('desktop-idle').hidden = res.ok;
      } catch (e) { /* the bridge is away: the status pill says so */ }
      await new Promise((done) => setTimeout(done, 1000));
    }
    viewing = false;
  }
  document.addEventListener('visibilitychange', desktopLoop);

  function renderConsentLeft() {
    const left = document.getElementById('consent-left');
    const input = state().desktop && state().desktop.input;
    if (!left || !input) return;
    let text = 'the agent may only look';
    if (input.granted && input.until) {
      const s = Math.max(0, Math.round(input.until - Date.now() / 1000));
      text = 'allowed until ' + new Date(input.until * 1000).toLocaleTimeString([], { hour12: false }) + ' (' +
        (s >= 60 ? Math.ceil(s / 60) + ' min' : s + ' s') + ' left)';
    } else if (input.granted) text = 'allowed until you switch it off';
    setText(left, text);
  }

  function renderDesktop() {
    const dk = state().desktop;
    if (!dk || !dk.enabled || !desktopPanel) return;
    if (consentSwitch && !consentSwitch.disabled) consentSwitch.checked = !!dk.input.granted;
    renderConsentLeft();
    const holder = document.getElementById('control-holder');
    const handback = document.getElementById('control-handback');
    if (holder && handback && dk.control) {
      const human = dk.control.holder === 'human';
      handback.hidden = !human;
      setText(holder, human ? 'You have the desktop (' + dk.control.reason + '): the agent\'s input is refused' +
        (dk.control.handbackIdle ? ' until you hand it back or leave it alone for ' + dk.control.handbackIdle + ' s.' : ' until you hand it back.')
        : 'The agent has the desktop; your own input takes it at once.');
    }
    const rec = dk.recording && dk.recording.active ? dk.recording : null;
    const note = $('recording-note');
    note.hidden = !rec;
    $('desktop-rec').hidden = !rec;
    if (rec) {
      setText(note, '● The agent is recording your input on the desktop (since ' +
        new Date(rec.since * 1000).toLocaleTimeString([], { hour12: false }) + ', ' + rec.steps +
        ' steps so far; it stops by itself after ' + rec.maxSeconds + ' s). Text typed into password fields is never recorded.');
    }
  }

  if (consentSwitch) {
    consentSwitch.addEventListener('change', async () => {
      const granted = consentSwitch.checked;
      const minutes = Number(/** @type {HTMLSelectElement} */ ($('consent-minutes')).value);
      consentSwitch.disabled = true;
      try {
        const out = await post('/cockpit/desktop/consent', granted ? { granted, minutes } : { granted });
        if (state().desktop) state().desktop.input = out.input;
        $('consent-error').textContent = '';
      } catch (e) {
        consentSwitch.checked = !granted;
        $('consent-error').textContent = String(/** @type {any} */ (e).message || e);
      }
      consentSwitch.disabled = false;
      renderDesktop();
    });
  }

  const handbackButton = document.getElementById('control-handback');
  if (handbackButton) {
    handbackButton.addEventListener('click', async () => {
      try {
        const out = await post('/cockpit/desktop/control', { holder: 'agent' });
        if (state().desktop) state().desktop.control = out.control;
      } catch (e) {
        $('consent-error').textContent = String(/** @type {any} */ (e).message || e);
      }
      renderDesktop();
    });
  }

  return { loop: desktopLoop, render: renderDesktop, renderConsentLeft };
}
