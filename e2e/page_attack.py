"""What a hostile page's scripts do to the bridge's panel, for the tests that play that attacker."""

#: Every way a page script can reach the panel: synthetic clicks, pointer and key events on every button and field,
#: Enter in every input, the client's own functions on window.__dbg.
ATTACK = """() => {
  const root = document.querySelector('dbg-human').shadowRoot;
  let hits = 0;
  for (const el of root.querySelectorAll('input, textarea')) {
    el.value = 'forged by the page';
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
    hits++;
  }
  for (const b of root.querySelectorAll('button')) {
    b.click();
    b.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, detail: 1 }));
    b.dispatchEvent(new PointerEvent('pointerup', { bubbles: true, composed: true }));
    b.focus();
    b.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
    b.dispatchEvent(new KeyboardEvent('keyup', { key: ' ', bubbles: true, composed: true }));
    hits++;
  }
  document.body.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: 5, clientY: 5 }));  // a picker's pick
  return hits;
}"""
