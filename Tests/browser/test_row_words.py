"""A row says what it shows (issue 40): once its photo is sepia, a row whose thumbnail is not on screen
yet (the grey placeholder, or the unfiltered preview) says "Sepia · loading…", and only a row showing its
sepia thumbnail offers "click to compare". Watched on every change of every row, through a jump into
cold rows made by a click in the scrollbar's track."""
from __future__ import annotations

import gestures
from test_page import Page

WATCH = """
window.rowWords = { seen: 0, offered: 0, wrong: [] };
new MutationObserver(() => {
  for (const row of document.querySelectorAll('#list [data-index]:not([hidden])')) {
    const status = row.querySelector('[data-role="status"]').textContent;
    const img = row.querySelector('[data-role="thumb"]');
    const showsThumbnail = !!img.getAttribute('src') && img.getAttribute('src').endsWith('/thumbnail');
    rowWords.seen += 1;
    if (!status.includes('click to compare')) continue;
    rowWords.offered += 1;
    if (!showsThumbnail) rowWords.wrong.push([row.dataset.index, status, img.getAttribute('src')]);
  }
}).observe(document.getElementById('list'), { subtree: true, childList: true, characterData: true, attributes: true });
"""


def test_only_a_row_showing_its_sepia_thumbnail_offers_to_compare(start_server, driver):
    # Given a page on a server whose photos take a moment, watched on every change of its rows
    server = start_server("row-words", photo_count=200, latency_ms=150, bandwidth=1_000_000)
    gestures.laptop(driver)
    page = Page(driver, server).open()
    page.js(WATCH)

    # When a person jumps into rows nobody has seen, and they fill in
    gestures.track_click(driver, "#list", 0.6)
    page.wait_reported()
    first, last = page.visible_range()
    assert first > 20, (first, last)
    page.wait_filtered(first, last, allow_failed=True)

    # Then the rows offered to compare only what they showed
    words = page.js("return rowWords")
    print(f"rows {first}-{last}: {words['seen']} row readings, {words['offered']} offering to compare")
    assert words["offered"] > 0, words
    assert words["wrong"] == [], words["wrong"][:5]
