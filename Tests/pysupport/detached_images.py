"""What a page asks for by images of its own: a script run before the page's scripts (CDP
`Page.addScriptToEvaluateOnNewDocument`) that notes every image the page loads by a detached Image
(images.js's loads, the first script's asks), and every stop that asks for its rows' thumbnails on its
report's request (`POST /api/viewport?thumbnails=A-B`), in order, with when it was asked for on the page's clock, so a test sees what
was asked for while the answer is still held. `window.__loads`: [{url, at}]."""
from __future__ import annotations

WATCH_DETACHED_IMAGES = """
window.__loads = [];
const imageSrc = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src');
Object.defineProperty(HTMLImageElement.prototype, 'src', {
  configurable: true, enumerable: true,
  get() { return imageSrc.get.call(this); },
  set(value) {
    if (!this.isConnected) window.__loads.push({ url: String(value), at: performance.now() });
    imageSrc.set.call(this, value);
  },
});
const nativeFetch = window.fetch;
window.fetch = function (input, init) {
  if (String(input).includes('/api/viewport?thumbnails=')) window.__loads.push({ url: String(input), at: performance.now() });
  return nativeFetch.apply(this, arguments);
};
"""

# Expressions for a test's script: the thumbnails asked for on their own so far, in order ({url, at}
# each); the previews; and the batches of a screen's thumbnails asked for so far ({url, at, first, last} each).
THUMBNAILS_ASKED = "window.__loads.filter((l) => /[/]photos[/][0-9]+[/]thumbnail$/.test(l.url))"
# The previews of bytes arrived asked for on their own so far ({url, at} each).
PREVIEWS_ASKED = "window.__loads.filter((l) => l.url.includes('/partial?'))"
BATCHES_ASKED = ("window.__loads.filter((l) => l.url.includes('/api/viewport?thumbnails=')).map((l) => Object.assign("
                 "{ first: Number(new URL(l.url, location.href).searchParams.get('thumbnails').split('-')[0]),"
                 " last: Number(new URL(l.url, location.href).searchParams.get('thumbnails').split('-')[1]) }, l))")
