// @ts-check
// dbg-bridge page client, part: highlight overlay (in a shadow root). Shares one IIFE with the other parts (inject/__init__.py).

const overlay = {
  /** @type {HTMLElement|null} */ host: null,
  /** @type {ShadowRoot|null} */ root: null,
  /** @type {Array<{el: Element, box: HTMLElement}>} */ items: [],
  raf: 0,
  timer: 0,
  ensure() {
    if (this.host && this.host.isConnected && this.root) return this.root;
    this.host = document.createElement('dbg-overlay');
    this.host.style.cssText = 'all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;';
    this.root = this.host.attachShadow({ mode: 'closed' });
    (document.body || document.documentElement).appendChild(this.host);
    return this.root;
  },
  /** @param {Element[]} els @param {string} label @param {number} durationMs */
  show(els, label, durationMs) {
    const root = this.ensure();
    for (const el of els) {
      const box = document.createElement('div');
      box.style.cssText = 'position: fixed; border: 2px solid #e4007c; background: rgba(228,0,124,.12); border-radius: 3px; box-sizing: border-box;';
      const tag = document.createElement('span');
      tag.textContent = label || refs.of(el);
      tag.style.cssText = 'position: absolute; left: -2px; top: -20px; font: 12px/16px system-ui, sans-serif; color: #fff; background: #e4007c; padding: 1px 5px; border-radius: 3px; white-space: nowrap;';
      box.appendChild(tag);
      root.appendChild(box);
      this.items.push({ el, box });
    }
    this.place();
    if (durationMs > 0) { clearTimeout(this.timer); this.timer = window.setTimeout(() => this.clear(), durationMs); }
  },
  place() {
    cancelAnimationFrame(this.raf);
    for (const { el, box } of this.items) {
      const r = el.getBoundingClientRect();
      Object.assign(box.style, { left: r.left + 'px', top: r.top + 'px', width: r.width + 'px', height: r.height + 'px', display: el.isConnected ? 'block' : 'none' });
    }
    if (this.items.length) this.raf = requestAnimationFrame(() => this.place());
  },
  clear() {
    cancelAnimationFrame(this.raf);
    for (const { box } of this.items) box.remove();
    const n = this.items.length;
    this.items = [];
    if (this.host) this.host.remove();
    this.host = null;
    this.root = null;
    return n;
  },
};
