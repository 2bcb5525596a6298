"""A row is one Mustache partial (`Templates/row.mustache`): the rows the server renders with the page
(its first screen) and the rows the page renders itself (`Public/rows.js` filling the `#row-template`
made of the same partial, with the status words the server gives it) are the same markup, state by state."""
from __future__ import annotations

from test_page import Page, find_failed_row, wait_for

# Fetches the page at `path` as the server renders it, and for each row of its first screen renders
# the same photo with the page's own row factory; returns each pair in a canonical form (attributes
# sorted, inline styles as the browser parses them, empty text dropped).
COMPARE = r"""
const [path, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const { createRowFactory } = await import(document.body.dataset.staticBase + '/rows.js');
  const factory = createRowFactory(document.getElementById('row-template'));
  const canon = (el) => {
    const attrs = [...el.attributes].filter((a) => a.name !== 'style').map((a) => a.name + '=' + a.value).sort();
    if (el.style && el.style.cssText) attrs.push('style=' + el.style.cssText);
    const kids = [...el.childNodes]
      .map((n) => (n.nodeType === 1 ? canon(n) : n.nodeType === 3 && n.textContent ? JSON.stringify(n.textContent) : ''))
      .filter(Boolean);
    return '<' + el.tagName.toLowerCase() + ' ' + attrs.join(' ') + '>' + kids.join('') + '</' + el.tagName.toLowerCase() + '>';
  };
  const html = await (await fetch(path)).text();
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return [...doc.querySelectorAll('#rows > .row')].map((server) => {
    const part = (role) => server.querySelector('[data-role="' + role + '"]');
    const known = !part('progress').classList.contains('indeterminate') && server.dataset.state === 'downloading';
    const photo = {
      index: Number(server.dataset.index), name: part('name').textContent, state: server.dataset.state,
      progress: known ? Number(part('bar').style.getPropertyValue('--p')) : null,
      reason: part('reason').textContent || null, detail: part('reason').title || null,
    };
    const el = factory.create();
    factory.render(el, photo, {
      src: part('thumb').getAttribute('src'), top: photo.index * Number(document.body.dataset.rowHeight),
      count: Number(server.getAttribute('aria-setsize')), active: false, offline: false,
    });
    return { state: photo.state, index: photo.index, server: canon(server), page: canon(el) };
  });
})().then(done, (error) => done({ error: String(error) }));
"""


def test_the_server_rendered_rows_and_the_pages_own_are_the_same_markup(server, driver):
    # Given rows in several states: one failed, the rows done around it, and rows nobody asked for yet
    failed = find_failed_row(server)
    first = max(0, failed["index"] - 3)
    page = Page(driver, server).open(f"/?row={first + 1}")
    page.wait_filtered(first, first + 5, allow_failed=True)
    photos = server.photos()
    untouched = next(i for i in range(len(photos) - 1, 0, -1) if photos[i]["state"] == "new")
    driver.set_script_timeout(60)

    # When each row the server renders with a page is rendered again by the page itself
    pairs = []
    for row in (first + 1, max(1, untouched - 4)):
        result = driver.execute_async_script(COMPARE, f"/?row={row}")
        assert isinstance(result, list), result
        pairs += result

    # Then every row is the same markup, whatever its state
    states = {pair["state"] for pair in pairs}
    assert {"new", "filtered", "failed"} <= states, states
    for pair in pairs:
        assert pair["server"] == pair["page"], f"row {pair['index']} ({pair['state']}):\n{pair['server']}\n{pair['page']}"
