"""The docs' limits (issue 60): README.md, docs/ and BENCHMARKS.md as `scripts/docs.py check` holds
them, the contract page against Public/openapi.json, the architecture picture against its source.
No server, no browser: a second or so."""
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "docs.py"

spec = importlib.util.spec_from_file_location("docs_tool", SCRIPT)
docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs)


def test_the_docs_check_passes():
    run = subprocess.run([sys.executable, str(SCRIPT), "check"], capture_output=True, text=True)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_paragraph_a_list_item_and_a_table_cell_are_each_counted_alone():
    long = " ".join(["word"] * 101)
    text = f"# Title\n\nshort paragraph\n\n- {long}\n\n| a | b |\n|---|---|\n| {long} | x |\n\n```\n{long}\n```\n"
    found = docs.blocks(text)
    assert [(kind, docs.words(body)) for kind, _, body in found] == [
        ("paragraph", 2), ("item", 101), ("cell", 1), ("cell", 1), ("cell", 101), ("cell", 1)]
    assert len(docs.over_limit(ROOT / "README.md", found)) == 2


def test_an_escaped_pipe_stays_inside_its_cell():
    assert docs.table_cells("| `a\\|b` | c |") == ["`a\\|b`", "c"]


def test_the_contract_page_follows_the_document():
    document = {
        "info": {"description": "Say. " * 120},
        "paths": {"/x": {"get": {"summary": "An x.", "responses": {"200": {"description": "The x."}}}}},
    }
    page = docs.contract_page(document)
    assert "| [`GET /x`](#get-x) | An x. | `200` |" in page
    assert "### GET /x" in page
    assert not docs.over_limit(ROOT / "docs" / "http-contract.md", docs.blocks(page))
    document["paths"]["/x"]["get"]["summary"] = "Another x."
    assert docs.contract_page(document) != page


def test_the_picture_is_stamped_with_its_source():
    data = (ROOT / "docs" / "architecture.png").read_bytes()
    stamp = docs.png_stamp(data)
    assert stamp is not None and len(stamp) == 64


def test_a_link_to_a_heading_that_is_not_there_is_named(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## HTTP/1.1 throughput\n\n[yes](#http11-throughput) [no](#http2-throughput)\n")
    docs.ROOT = tmp_path
    try:
        assert docs.links(page, page.read_text()) == [
            "page.md: links #http2-throughput, a heading page.md does not have"]
    finally:
        docs.ROOT = ROOT
