"""A failed row's "Try again", as a person meets it on a photo that fails every time (a sample entry
mis-named on purpose: the origin answers 404 whoever asks): the row says it is being tried again, and
when it fails again it says so, how many times it was tried, and why; never a bare "Downloading" and
then the very same words as before, as if nothing had happened."""
from __future__ import annotations

from test_page import ROW_HEIGHT, Page, find_failed_row, wait_for

# The row's words, each time they change, from before the click to after it.
WATCH = """
const row = document.querySelector(arguments[0]);
window.retrySeen = [];
new MutationObserver(() => {
  const text = row.querySelector('.status').textContent;
  if (window.retrySeen[window.retrySeen.length - 1] !== text) window.retrySeen.push(text);
}).observe(row, { subtree: true, childList: true, characterData: true, attributes: true });
"""


def test_a_row_tried_again_says_so_and_why_it_failed_again(server, driver):
    # Given a photo the origin never has, its row on screen and failed
    failed = find_failed_row(server)
    index, reason = failed["index"], failed["reason"]
    page = Page(driver, server).open()
    page.scroll_to([max(0, (index - 3) * ROW_HEIGHT)])
    page.wait_reported()
    row_css = f'#list .row[data-index="{index}"]'
    wait_for(driver, lambda d: d.execute_script(
        "return document.querySelector(arguments[0]).dataset.state === 'failed'", row_css), 30,
        f"row {index} never showed its failure")
    row = driver.find_element("css selector", row_css)
    before = row.find_element("css selector", ".status").text
    assert before == "Failed to load", before

    # When the person presses "Try again" on it
    tried = server.stats()["downloads"]["failed"]
    driver.execute_script(WATCH, row_css)
    row.find_element("css selector", "[data-action='retry']").click()

    # Then the row ends saying it failed again, after two tries, with the origin's reason beside
    wait_for(driver, lambda d: d.find_element("css selector", row_css + " .status").text.startswith("Failed again"),
             30, "the row never said it failed again: " + repr(driver.execute_script("return window.retrySeen")))
    seen = driver.execute_script("return window.retrySeen")
    print(f"row {index} said, in turn: {seen}")
    assert row.find_element("css selector", ".status").text == "Failed again (tried 2 times)"
    assert row.find_element("css selector", ".reason").text == reason
    assert row.get_attribute("data-state") == "failed"
    assert "Failed again (tried 2 times)" in row.get_attribute("aria-label") and reason in row.get_attribute("aria-label")
    # And from the click on it said it was trying again, then once that it failed again, nothing else
    assert seen[0] == "Failed to load" and seen[1].startswith("Trying again"), seen
    assert all(text.startswith("Trying again") for text in seen[1:-1]), seen
    assert seen[-1] == "Failed again (tried 2 times)", seen
    # And the server did try again: one more failed download in its totals
    wait_for(driver, lambda d: server.stats()["downloads"]["failed"] > tried, 10, "the server never tried again")
