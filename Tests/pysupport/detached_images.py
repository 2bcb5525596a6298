"""What a page asks for by images of its own: a script run before the page's scripts (CDP
`Page.addScriptToEvaluateOnNewDocument`) that notes every image the page loads by a detached Image
(images.js's loads, the first script's asks), in order, with when it was asked for on the page's clock,
so a test sees what was asked for while the answer is still held. `window.__loads`: [{url, at}]."""
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
"""

# Expressions for a test's script: the thumbnails asked for so far, in order ({url, at} each); and
# when each answer the page fetched ended (page clock), by path.
THUMBNAILS_ASKED = "window.__loads.filter((l) => /[/]photos[/][0-9]+[/]thumbnail$/.test(l.url))"
ANSWERS_ENDED = ("Object.fromEntries(performance.getEntriesByType('resource')"
                 ".map((e) => [new URL(e.name).pathname, e.responseEnd]))")
