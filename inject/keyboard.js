// @ts-check
// dbg-bridge page client, part: keys as Chromium sends them for a US layout (keydown/keypress/beforeinput/input/keyup,
// implicit form submission, Tab focus). Shares one IIFE with the other parts (inject/__init__.py).

/** code keyCode key [shifted key], after Playwright's usKeyboardLayout. */
const US_LAYOUT_SPEC = `Escape 27 Escape|F1 112 F1|F2 113 F2|F3 114 F3|F4 115 F4|F5 116 F5|F6 117 F6|F7 118 F7|F8 119 F8|F9 120 F9|F10 121 F10|
F11 122 F11|F12 123 F12|Backquote 192 \` ~|Digit1 49 1 !|Digit2 50 2 @|Digit3 51 3 #|Digit4 52 4 $|Digit5 53 5 %|Digit6 54 6 ^|
Digit7 55 7 &|Digit8 56 8 *|Digit9 57 9 (|Digit0 48 0 )|Minus 189 - _|Equal 187 = +|Backslash 220 \\ ||Backspace 8 Backspace|Tab 9 Tab|
KeyQ 81 q Q|KeyW 87 w W|KeyE 69 e E|KeyR 82 r R|KeyT 84 t T|KeyY 89 y Y|KeyU 85 u U|KeyI 73 i I|KeyO 79 o O|KeyP 80 p P|
BracketLeft 219 [ {|BracketRight 221 ] }|CapsLock 20 CapsLock|KeyA 65 a A|KeyS 83 s S|KeyD 68 d D|KeyF 70 f F|KeyG 71 g G|
KeyH 72 h H|KeyJ 74 j J|KeyK 75 k K|KeyL 76 l L|Semicolon 186 ; :|Quote 222 ' "|Enter 13 Enter|ShiftLeft 16 Shift|KeyZ 90 z Z|
KeyX 88 x X|KeyC 67 c C|KeyV 86 v V|KeyB 66 b B|KeyN 78 n N|KeyM 77 m M|Comma 188 , <|Period 190 . >|Slash 191 / ?|
ControlLeft 17 Control|MetaLeft 91 Meta|AltLeft 18 Alt|Space 32 Space|ContextMenu 93 ContextMenu|PrintScreen 44 PrintScreen|
ScrollLock 145 ScrollLock|Pause 19 Pause|PageUp 33 PageUp|PageDown 34 PageDown|Insert 45 Insert|Delete 46 Delete|Home 36 Home|
End 35 End|ArrowLeft 37 ArrowLeft|ArrowUp 38 ArrowUp|ArrowRight 39 ArrowRight|ArrowDown 40 ArrowDown|NumLock 144 NumLock`;

/** @typedef {{key: string, code: string, keyCode: number, shift: boolean, location: number}} KeyDef */
/** key (or code) -> definition. @type {Map<string, KeyDef>} */
const US_KEYS = new Map();
for (const entry of US_LAYOUT_SPEC.replace(/\n/g, '').split(/\|(?=[A-Z])/)) {
  const [code, kc, key, shifted] = entry.split(' ');
  const location = /^(Shift|Control|Alt|Meta)Left$/.test(code) ? 1 : 0;
  const def = { key: key === 'Space' ? ' ' : key, code, keyCode: Number(kc), shift: false, location };
  US_KEYS.set(code, def);
  if (!US_KEYS.has(def.key)) US_KEYS.set(def.key, def);
  if (shifted) US_KEYS.set(shifted, { key: shifted, code, keyCode: Number(kc), shift: true, location: 0 });
}
for (const [alias, name] of [['Esc', 'Escape'], ['Return', 'Enter'], ['Ctrl', 'Control'], ['Control', 'ControlLeft'],
  ['Shift', 'ShiftLeft'], ['Alt', 'AltLeft'], ['Meta', 'MetaLeft'], ['Cmd', 'MetaLeft'], ['Command', 'MetaLeft'],
  ['Option', 'AltLeft'], ['Up', 'ArrowUp'], ['Down', 'ArrowDown'], ['Left', 'ArrowLeft'], ['Right', 'ArrowRight'], ['Del', 'Delete']]) {
  const def = US_KEYS.get(name);
  if (def && !US_KEYS.has(alias)) US_KEYS.set(alias, def);
}

/** A key by name, code or character; anything else is a character off the layout (keyCode 0, like a composed key). @param {string} key @returns {KeyDef} */
function keyDef(key) {
  const def = US_KEYS.get(key) || US_KEYS.get(key.length > 1 ? key[0].toUpperCase() + key.slice(1).toLowerCase() : key);
  if (def) return def;
  if ([...key].length !== 1) {
    throw new DbgError('bad_key', "Unknown key '" + key + "'. Use a key name (Enter, Tab, Escape, ArrowDown, Backspace, F5…), " +
      "a single character, or a chord like 'Control+a'.");
  }
  return { key, code: '', keyCode: 0, shift: false, location: 0 };
}

/** The text a key types (null for keys that type nothing). @param {KeyDef} def */
function keyText(def) {
  if (def.key === 'Enter') return '\r';
  return [...def.key].length === 1 ? def.key : null;
}

/** @typedef {{ctrlKey: boolean, shiftKey: boolean, altKey: boolean, metaKey: boolean}} Mods */
/** @type {Record<string, keyof Mods>} */
const MOD_FLAGS = { Control: 'ctrlKey', Shift: 'shiftKey', Alt: 'altKey', Meta: 'metaKey' };

/** One keyboard event with the legacy fields (keyCode, which, charCode) Chromium fills in. @param {Element} el
 * @param {string} type @param {KeyDef} def @param {Mods} mods @param {number} [charCode] */
function keyEvent(el, type, def, mods, charCode) {
  const legacy = type === 'keypress' ? { keyCode: charCode || 0, charCode: charCode || 0, which: charCode || 0 }
    : { keyCode: def.keyCode, charCode: 0, which: def.keyCode };
  const init = Object.assign({ key: def.key, code: def.code, location: def.location, bubbles: true, cancelable: true,
    composed: true, view: window, repeat: false }, mods, legacy);
  if (def.shift) init.shiftKey = true;
  const ev = new KeyboardEvent(type, init);
  // constructors ignore (or read only some of) the legacy fields; pin them like a real event's
  for (const [k, v] of Object.entries(legacy)) {
    if (/** @type {any} */ (ev)[k] !== v) Object.defineProperty(ev, k, { get: () => v });
  }
  return el.dispatchEvent(ev);
}

const TEXT_INPUT = /^(text|search|url|tel|email|password|number|date|month|week|time|datetime-local)$/;
/** Input types whose caret/selection can be set. */
const SELECTABLE_INPUT = /^(text|search|url|tel|password)$/;

/** Is el a field that takes typed text? @param {Element} el */
function isTextField(el) {
  if (el.tagName === 'TEXTAREA') return true;
  if (el.tagName === 'INPUT') return TEXT_INPUT.test((el.getAttribute('type') || 'text').toLowerCase());
  return !!(/** @type {HTMLElement} */ (el)).isContentEditable || !!(/** @type {any} */ (el)).editContext;
}

/** Fields edited by the keyboard since their last change event: change fires on Enter or blur, as a browser's does. @type {WeakSet<Element>} */
const dirtyFields = new WeakSet();
/** @param {Element} el */
function markDirty(el) {
  if (dirtyFields.has(el) || el.tagName === 'SELECT' || /** @type {HTMLElement} */ (el).isContentEditable) return;
  dirtyFields.add(el);
  el.addEventListener('blur', () => commitChange(el), { once: true });
}
/** @param {Element} el */
function commitChange(el) {
  if (!dirtyFields.has(el)) return;
  dirtyFields.delete(el);
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Insert (or with text '' delete) at the caret the way typing does: beforeinput, the edit, input. @param {Element} el
 * @param {string} inputType @param {string|null} data */
function editField(el, inputType, data) {
  const ec = /** @type {any} */ (el).editContext;
  if (ec) { editContextEdit(ec, inputType, data); return; }
  if (!el.dispatchEvent(new InputEvent('beforeinput', { inputType, data, bubbles: true, cancelable: true, composed: true }))) return;
  const h = /** @type {HTMLElement} */ (el);
  if (h.isContentEditable) {
    const cmd = inputType === 'insertText' ? 'insertText' : inputType === 'insertLineBreak' ? 'insertLineBreak'
      : inputType === 'deleteContentForward' ? 'forwardDelete' : 'delete';
    document.execCommand(cmd, false, data || undefined); // fires input itself
    return;
  }
  const f = /** @type {HTMLInputElement} */ (el);
  const value = String(f.value || '');
  let start = value.length, end = value.length;
  const canSelect = el.tagName === 'TEXTAREA' || SELECTABLE_INPUT.test((el.getAttribute('type') || 'text').toLowerCase());
  if (canSelect && f.selectionStart != null && f.selectionEnd != null) { start = f.selectionStart; end = f.selectionEnd; }
  if (start === end && inputType === 'deleteContentBackward') start = Math.max(0, start - 1);
  if (start === end && inputType === 'deleteContentForward') end = Math.min(value.length, end + 1);
  const insert = inputType === 'insertLineBreak' ? '\n' : data || '';
  if (canSelect) f.setRangeText(insert, start, end, 'end');
  else setNativeValue(el, value.slice(0, start) + insert + value.slice(end));
  markDirty(el);
  el.dispatchEvent(new InputEvent('input', { inputType, data, bubbles: true, composed: true }));
}

/** Edit through an EditContext as the browser does for a key: its text and selection first, then the textupdate
 * event the editor listens to (an EditContext host gets no beforeinput/input for typed text). From/to default to its
 * selection. @param {any} ec @param {string} inputType @param {string|null} data @param {number} [from] @param {number} [to] */
function editContextEdit(ec, inputType, data, from, to) {
  let start = from != null ? from : Math.min(ec.selectionStart, ec.selectionEnd);
  let end = to != null ? to : Math.max(ec.selectionStart, ec.selectionEnd);
  if (start === end && inputType === 'deleteContentBackward') start = Math.max(0, start - 1);
  if (start === end && inputType === 'deleteContentForward') end = Math.min(ec.text.length, end + 1);
  const text = inputType === 'insertLineBreak' ? '\n' : inputType.startsWith('delete') ? '' : data || '';
  const caret = start + text.length;
  ec.updateText(start, end, text);
  ec.updateSelection(caret, caret);
  const TextUpdate = /** @type {any} */ (window).TextUpdateEvent;
  ec.dispatchEvent(new TextUpdate('textupdate', { updateRangeStart: start, updateRangeEnd: end, text, selectionStart: caret, selectionEnd: caret }));
}

/** The form's default button (its first submit button in tree order), or null. @param {HTMLFormElement} form */
function defaultButton(form) {
  for (const c of Array.from(form.elements)) {
    const type = (c.getAttribute('type') || (c.tagName === 'BUTTON' ? 'submit' : '')).toLowerCase();
    if ((c.tagName === 'BUTTON' || c.tagName === 'INPUT') && (type === 'submit' || type === 'image')) return /** @type {HTMLElement} */ (c);
  }
  return null;
}

/** Enter in a form field, as HTML's implicit submission: click the default button; without one, submit a form
 * that has a single text field. @param {Element} el */
function implicitSubmit(el) {
  const form = /** @type {HTMLFormElement|null} */ (/** @type {any} */ (el).form);
  if (!form) return;
  const button = defaultButton(form);
  if (button) { if (!(/** @type {any} */ (button)).disabled) button.click(); return; }
  const blocking = Array.from(form.elements).filter((c) => c.tagName === 'INPUT' && TEXT_INPUT.test((c.getAttribute('type') || 'text').toLowerCase()));
  if (blocking.length <= 1) form.requestSubmit();
}

/** Elements Tab stops at, in sequential focus order (positive tabindex first), open shadow roots included. */
function tabOrder() {
  const all = deepElements(document.body || document.documentElement).filter((el) => {
    const h = /** @type {HTMLElement} */ (el);
    if (h.tabIndex < 0 || /** @type {any} */ (el).disabled || hidden(el) || el.shadowRoot && el.shadowRoot.delegatesFocus) return false;
    if (h.tabIndex > 0 || el.hasAttribute('tabindex') || h.isContentEditable) return true;
    if (el.tagName === 'A' || el.tagName === 'AREA') return el.hasAttribute('href');
    if (el.tagName === 'INPUT') return /** @type {HTMLInputElement} */ (el).type !== 'hidden';
    return /^(BUTTON|SELECT|TEXTAREA|SUMMARY|IFRAME)$/.test(el.tagName);
  });
  const positive = all.filter((el) => /** @type {HTMLElement} */ (el).tabIndex > 0)
    .sort((a, b) => /** @type {HTMLElement} */ (a).tabIndex - /** @type {HTMLElement} */ (b).tabIndex);
  return positive.concat(all.filter((el) => /** @type {HTMLElement} */ (el).tabIndex === 0));
}

/** Move focus like Tab / Shift+Tab from el. @param {Element} el @param {boolean} back */
function moveFocus(el, back) {
  const order = tabOrder();
  if (!order.length) return;
  const i = order.indexOf(el);
  const next = i < 0 ? order[back ? order.length - 1 : 0] : order[(i + (back ? -1 : 1) + order.length) % order.length];
  /** @type {HTMLElement} */ (next).focus();
  if (next.tagName === 'INPUT' && SELECTABLE_INPUT.test(/** @type {HTMLInputElement} */ (next).type)) /** @type {HTMLInputElement} */ (next).select();
}

/** Press one key (with modifiers held) on el as Chromium does; answers the element the key went to. A keydown
 * handler that moves the focus (a grid opening its cell editor on the first key) sends the rest of the key there, as
 * a browser does. @param {Element} el @param {KeyDef} def @param {Mods} mods @returns {Element} */
function pressKey(el, def, mods) {
  const text = keyText(def);
  const shortcut = mods.ctrlKey || mods.metaKey || (mods.altKey && !def.shift);
  const focused = deepActiveElement();
  let go = keyEvent(el, 'keydown', def, mods);
  const moved = deepActiveElement();
  if (moved && moved !== focused && moved !== el && isTextField(moved)) el = moved;
  if (go && text != null && !shortcut) {
    go = keyEvent(el, 'keypress', def, mods, text === '\r' ? 13 : /** @type {number} */ (text.codePointAt(0)));
  }
  let upOn = el;
  if (go) {
    const field = isTextField(el);
    const lower = def.key.length === 1 ? def.key.toLowerCase() : def.key;
    if (text != null && text !== '\r' && !shortcut && field) editField(el, 'insertText', text);
    else if (def.key === 'Enter' && !shortcut) {
      if (el.tagName === 'TEXTAREA' || (field && el.tagName !== 'INPUT')) editField(el, 'insertLineBreak', null);
      else if (el.tagName === 'INPUT' && field) { commitChange(el); implicitSubmit(el); }
      else if (/^(BUTTON|A|SUMMARY)$/.test(el.tagName) || (el.tagName === 'INPUT' && /^(button|submit|reset|image|checkbox|radio)$/.test(/** @type {HTMLInputElement} */ (el).type))) {
        if (el.tagName !== 'INPUT' || !/^(checkbox|radio)$/.test(/** @type {HTMLInputElement} */ (el).type)) /** @type {HTMLElement} */ (el).click();
      }
    } else if ((def.key === 'Backspace' || def.key === 'Delete') && field) {
      editField(el, def.key === 'Backspace' ? 'deleteContentBackward' : 'deleteContentForward', null);
    } else if (def.key === 'Tab' && !mods.ctrlKey && !mods.metaKey && !mods.altKey) {
      moveFocus(el, mods.shiftKey);
      upOn = deepActiveElement() || el;
    } else if (lower === 'a' && (mods.ctrlKey || mods.metaKey) && field) {
      if (typeof (/** @type {any} */ (el)).select === 'function') /** @type {HTMLInputElement} */ (el).select();
      else { const sel = getSelection(); if (sel) sel.selectAllChildren(el); }
    }
  }
  keyEvent(upOn, 'keyup', def, mods);
  if (go && def.key === ' ' && !shortcut && (el.tagName === 'BUTTON' || (el.tagName === 'INPUT' && /^(button|submit|reset|checkbox|radio)$/.test(/** @type {HTMLInputElement} */ (el).type)))) {
    /** @type {HTMLElement} */ (el).click(); // Space activates on keyup
  }
  return el;
}

/** Hold the chord's modifiers (keydown each), press its key, release them in reverse. @param {Element} el @param {string} chord e.g. 'Enter', 'Control+a', 'Shift+Tab' */
function pressChord(el, chord) {
  const parts = String(chord) === '+' ? ['+'] : String(chord).split(/\+(?!$)/);
  const key = parts.pop() || '';
  const mods = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
  const held = parts.map((p) => keyDef(p));
  for (const def of held) {
    const flag = MOD_FLAGS[def.key];
    if (!flag) throw new DbgError('bad_key', "'" + def.key + "' in '" + chord + "' is not a modifier; modifiers are Control, Shift, Alt, Meta.");
    mods[flag] = true;
    keyEvent(el, 'keydown', def, mods);
  }
  pressKey(el, keyDef(key), mods);
  for (const def of held.reverse()) {
    mods[MOD_FLAGS[def.key]] = false;
    keyEvent(deepActiveElement() || el, 'keyup', def, mods);
  }
}

/** Type text into el one character at a time, each a full key press; when a key moves the focus, the next keys
 * go where it went (as a person's keys do). Answers the element that took the last key. @param {Element} el
 * @param {string} text @returns {Element} */
function typeText(el, text) {
  const none = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
  let at = el;
  for (const ch of String(text)) {
    const focused = deepActiveElement();
    at = pressKey(at, ch === '\n' ? keyDef('Enter') : keyDef(ch), none);
    const now = deepActiveElement();
    if (now && now !== focused && now !== at) at = now;
  }
  return at;
}
