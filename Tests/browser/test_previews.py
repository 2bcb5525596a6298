"""First pixels before the last byte: a row on screen shows a sepia preview of the bytes arrived so far,
sharper previews as more arrive, then the final thumbnail. The origin holds the photo at bytes the test
chooses (gates it opens), so each preview is looked at while the last byte has certainly not been sent."""
from __future__ import annotations

import pytest

from held_photo_origin import HeldPhotoOrigin
from test_page import WORK_TIMEOUT, Page, wait_for


# Every `src` the row's thumbnail is given, in order, with whether it had loaded; the one it has now first.
WATCH_ROW = """
    const img = document.querySelector('#list .row[data-index="0"] [data-role="thumb"]');
    window.__srcs = [img.getAttribute('src') || ''];
    new MutationObserver(() => window.__srcs.push(img.getAttribute('src') || ''))
        .observe(img, { attributes: true, attributeFilter: ['src'] });
"""

# The row's image now, loaded: its src and its mean red, green and blue.
SHOWN = """
    const img = document.querySelector('#list .row[data-index="0"] [data-role="thumb"]');
    const src = img.getAttribute('src') || '';
    if (!img.complete || !img.naturalWidth) return { src, loaded: false };
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d');
    context.drawImage(img, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const mean = [0, 0, 0];
    for (let i = 0; i < pixels.length; i += 4) for (let c = 0; c < 3; c += 1) mean[c] += pixels[i + c];
    return { src, loaded: true, mean: mean.map((m) => m / (pixels.length / 4)) };
"""


def scan_starts(jpeg: bytes) -> list[int]:
    """Offsets of a JPEG's start-of-scan markers (FF DA)."""
    return [i for i in range(len(jpeg) - 1) if jpeg[i] == 0xFF and jpeg[i + 1] == 0xDA]


def partial_number(src: str) -> int | None:
    return int(src.split("n=")[1]) if "/partial?n=" in src else None


@pytest.fixture
def held(server, session_dir):
    """A progressive sample photo, held after its first scan (and then some) and again after a
    further quarter of it: the server previews every 8 KB until one shows, then every quarter."""
    photo = (session_dir / "samples" / "sample-photos-v2" / "photo-000.jpg").read_bytes()
    scans = scan_starts(photo)
    assert len(scans) > 3, "photo-000 is one of the sample origin's progressive JPEGs"
    # Past the first scan by more than a take's step and a network read, so a take holds it whole.
    first = scans[1] + 32 * 1024
    # The next take comes a quarter of the photo after the first preview's; a scan ends before it.
    second = first + len(photo) // 4 + 48 * 1024
    assert second < len(photo), (first, second, len(photo))
    origin = HeldPhotoOrigin(photo, [first, second])
    yield origin
    origin.close()


def test_a_row_shows_sepia_previews_in_order_before_its_last_byte_then_the_final_image(
        held, start_server, session_dir, driver):
    # Given a list of one photo whose origin holds it after its first scans
    source = held.write_source(session_dir / "held-source.json")
    server = start_server("held", photo_count=1, latency_ms=20, bandwidth=20_000_000, source=str(source))
    page = Page(driver, server).open()
    page.js(WATCH_ROW)

    # When its first bytes have arrived: the row shows a preview of them, in sepia, while the rest waits
    wait_for(driver, lambda d: "/partial?" in d.execute_script(SHOWN)["src"], WORK_TIMEOUT,
             "the row never showed a preview of the bytes arrived")
    first = page.js(SHOWN)
    assert first["loaded"], first
    red, green, blue = first["mean"]
    assert red > green > blue, f"the preview is not sepia: mean RGB {first['mean']}"
    assert held.sent == held.cuts[0] < len(held.photo)
    assert server.photos()[0]["state"] == "downloading"

    # When more arrives: a sharper preview replaces it, the last byte still held
    held.open_gate(0)
    n = partial_number(first["src"])
    wait_for(driver, lambda d: (partial_number(d.execute_script(SHOWN)["src"]) or 0) > n, WORK_TIMEOUT,
             f"no later preview replaced preview {n}")
    assert held.sent == held.cuts[1] < len(held.photo)
    assert server.photos()[0]["state"] == "downloading"

    # When the rest arrives: the final sepia thumbnail replaces the previews
    held.open_gate(1)
    page.wait_filtered(0, 0)

    # Then the row went from preview to ever later preview to the final image, never back
    srcs = [s for s in page.js("return window.__srcs") if s]
    previews = [partial_number(s) for s in srcs[:-1]]
    assert srcs[-1].endswith("/photos/0/thumbnail"), srcs
    assert None not in previews and previews == sorted(set(previews)) and len(previews) >= 2, srcs


def test_a_camera_photo_shows_its_exif_thumbnail_from_its_first_bytes(server, start_server, session_dir, driver):
    # Given a list of one camera photo (baseline, a thumbnail in its Exif block) whose origin holds it
    # once a tenth of it has gone: the thumbnail and the first rows, and progress events after them
    photo = (session_dir / "samples" / "sample-photos-v2" / "photo-001.jpg").read_bytes()
    assert photo[2:4] == b"\xff\xe1", "photo-001 is one of the sample origin's camera photos"
    origin = HeldPhotoOrigin(photo, [len(photo) // 10])
    try:
        source = origin.write_source(session_dir / "camera-source.json")
        server = start_server("camera", photo_count=1, latency_ms=20, bandwidth=20_000_000, source=str(source))
        page = Page(driver, server).open()

        # Then the row shows the whole photo in sepia from the Exif thumbnail, the rest still held
        wait_for(driver, lambda d: "/partial?" in d.execute_script(SHOWN)["src"], WORK_TIMEOUT,
                 "the row never showed the photo's Exif thumbnail")
        shown = page.js(SHOWN)
        red, green, blue = shown["mean"]
        assert red > green > blue, f"the preview is not sepia: mean RGB {shown['mean']}"
        assert origin.sent == origin.cuts[0] < len(photo)

        # And the final image replaces it once the rest has come
        origin.open_gate(0)
        page.wait_filtered(0, 0)
    finally:
        origin.close()
