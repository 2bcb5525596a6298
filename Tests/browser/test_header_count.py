"""The list's length is one figure wherever the page says it: the header ("Ready · 300 photos"), the
sepia chip ("12 / 300 sepia") and the list itself, from a first start on (the sample list lists its
mis-named entries too, which fail on purpose: the count is of rows, not of photos the origin has)."""
from __future__ import annotations

import re

from test_page import Page, wait_for


def test_the_header_the_chip_and_the_list_give_one_count(server, driver):
    page = Page(driver, server).open()
    wait_for(driver, lambda d: d.find_element("id", "source-status").text.startswith("Ready"), 30, "the list never got ready")
    count = page.count
    header = driver.find_element("id", "source-status").text
    chip = driver.find_element("id", "summary").text
    listed = len(server.photos())
    print(f"header {header!r}, chip {chip!r}, list {count}, /api/photos {listed}")
    assert header == f"Ready · {count:,} photos", header
    assert re.fullmatch(rf"[\d,]+ / {count:,} sepia", chip), chip
    assert count == listed == server.photo_count
    # And no other total of the list appears anywhere on the page ("of 293" beside "300 photos")
    totals = {int(n.replace(",", "")) for n in re.findall(r"\bof ([\d,]+)\b", driver.execute_script("return document.body.innerText"))}
    assert totals <= {count}, totals
