// Tooltips: an element with class `has-tip` says what it means on hover and on keyboard focus, in
// one floating tooltip. The text is the element's description (aria-describedby, which screen
// readers read too) or, for elements named by aria-label (the timeline's bars), that label.

/** Wires the tooltip element `tip` (role tooltip) for every `.has-tip` under `root`. */
export function attachTips({ root, tip }) {
  let owner = null;

  function textOf(el) {
    const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter((id) => id && id !== tip.id);
    const described = ids.map((id) => document.getElementById(id)).filter(Boolean).map((d) => d.textContent.trim()).join(' ');
    return described || el.getAttribute('aria-label') || '';
  }

  function place(el) {
    const box = el.getBoundingClientRect();
    const width = Math.min(320, window.innerWidth - 16);
    tip.style.maxWidth = width + 'px';
    const tipBox = tip.getBoundingClientRect();
    let left = box.left + box.width / 2 - tipBox.width / 2;
    left = Math.max(8, Math.min(window.innerWidth - tipBox.width - 8, left));
    let top = box.bottom + 6;
    if (top + tipBox.height > window.innerHeight - 8) top = Math.max(8, box.top - tipBox.height - 6);
    tip.style.transform = 'translate(' + Math.round(left) + 'px,' + Math.round(top) + 'px)';
  }

  function show(el) {
    const text = textOf(el);
    if (!text) return;
    owner = el;
    tip.textContent = text;
    tip.hidden = false;
    place(el);
  }

  function hide(el) {
    if (el && el !== owner) return;
    owner = null;
    tip.hidden = true;
  }

  const target = (event) => event.target instanceof Element ? event.target.closest('.has-tip') : null;
  root.addEventListener('pointerover', (event) => {
    const el = target(event);
    if (el && el !== owner) show(el);
  });
  root.addEventListener('pointerout', (event) => {
    const el = target(event);
    if (el && !el.contains(event.relatedTarget)) hide(el);
  });
  root.addEventListener('focusin', (event) => {
    const el = target(event);
    if (el) show(el); else hide();
  });
  root.addEventListener('focusout', (event) => { const el = target(event); if (el) hide(el); });
  root.addEventListener('keydown', (event) => { if (event.key === 'Escape' && owner) hide(); });
  // The tooltip follows its element when something scrolls, and goes when the element has left.
  window.addEventListener('scroll', () => {
    if (!owner) return;
    const box = owner.getBoundingClientRect();
    if (box.bottom < 0 || box.top > window.innerHeight || !owner.isConnected) hide(); else place(owner);
  }, { capture: true, passive: true });

  return {
    /** Refreshes the tooltip if `el` owns it (its text changed). */
    refresh(el) { if (owner === el) show(el); },
    get owner() { return owner; },
  };
}
