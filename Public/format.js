// Numbers as people read them.

/** 1234567 -> "1.23 MB" (powers of 1000). */
export function formatBytes(n) {
  n = Number(n) || 0;
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (Math.abs(n) >= 1000 && i < units.length - 1) { n /= 1000; i += 1; }
  const digits = i === 0 ? 0 : (Math.abs(n) < 10 ? 2 : Math.abs(n) < 100 ? 1 : 0);
  return n.toFixed(digits) + ' ' + units[i];
}

/** 0.25 -> "250 ms", 3.5 -> "3.50 s", 75 -> "1 min 15 s". */
export function formatSeconds(s) {
  s = Number(s) || 0;
  if (s < 1) return Math.round(s * 1000) + ' ms';
  if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
  return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
}

/** 12345 -> "12,345" (by hand: the first toLocaleString of a page costs tens of ms of locale data). */
export const formatCount = (n) => String(Math.round(Number(n) || 0)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** (1, 'download') -> "1 download", (2, 'download') -> "2 downloads". */
export const plural = (n, word, many = word + 's') => formatCount(n) + ' ' + (Number(n) === 1 ? word : many);

/** Sets an element's text only when it changes (no needless layout). */
export function setText(el, text) {
  if (el && el.textContent !== text) el.textContent = text;
}

/** What the page says while the list loads (seconds at most: sample photos are made as rows want them). */
export function loadingText() {
  return 'Loading photo list…';
}
