// "Explain the figures": writes each figure's description (its aria-describedby, the text its
// tooltip shows on hover) under it, so every explanation is reachable without a pointer and
// without making figures Tab stops (only controls are, as the WAI-ARIA practices ask).
// Descriptions of table cells, timeline tracks and badges go in one list after their block.

const GROUPED = 'th, td, .tl-track, .badge';
const BLOCK = 'table, .timeline, .queues';

/** Wires the toggle `button` to write or remove the explanations of the `.has-tip` figures in `root`. */
export function attachExplain({ button, root }) {
  const describe = (el) => (el.getAttribute('aria-describedby') || '').split(/\s+/)
    .map((id) => document.getElementById(id)).filter(Boolean).map((d) => d.textContent.trim()).join(' ');

  function write() {
    const lists = new Map(); // block -> Map(text -> label)
    for (const el of root.querySelectorAll('.has-tip[aria-describedby]')) {
      if (el.closest('.op')) continue;
      const text = describe(el);
      if (!text) continue;
      const block = el.matches(GROUPED) ? el.closest(BLOCK) : null;
      if (block) {
        if (!lists.has(block)) lists.set(block, new Map());
        lists.get(block).set(text, el.textContent.trim());
        continue;
      }
      const span = document.createElement('span');
      span.className = 'explanation';
      span.textContent = text;
      // A figure whose own text the panel rewrites (found by its id) gets it beside, not inside.
      if (el.id) el.after(span); else el.append(span);
    }
    for (const [block, texts] of lists) {
      const ul = document.createElement('ul');
      ul.className = 'explanations';
      for (const [text, label] of texts) {
        const li = document.createElement('li');
        const strong = document.createElement('strong');
        strong.textContent = label.replace(/\s+/g, ' ');
        li.append(strong, ': ' + text);
        ul.append(li);
      }
      block.after(ul);
    }
  }

  function clear() {
    for (const el of root.querySelectorAll('.explanation, .explanations')) el.remove();
  }

  button.addEventListener('click', () => {
    const on = button.getAttribute('aria-pressed') !== 'true';
    button.setAttribute('aria-pressed', String(on));
    if (on) write(); else clear();
  });
}
