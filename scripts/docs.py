#!/usr/bin/env python3
"""The docs' own tooling: the HTTP contract page generated from Public/openapi.json, the
architecture picture rendered from its Graphviz source, and the checks the tests run.

    scripts/docs.py contract           write docs/http-contract.md from Public/openapi.json
    scripts/docs.py contract --check   fail when the committed page differs from what it would write
    scripts/docs.py diagram            render docs/architecture.dot to docs/architecture.png (needs `dot`)
    scripts/docs.py check              every check below; prints the README's figures

The checks (`check`): README.md at most 2,500 words, no paragraph, list item or table cell over
100 words, starting with the two commands, with `--host` and presenting in its first 40 lines,
linking the architecture picture; every page of docs/ under the same paragraph limit; the contract
page what openapi.json makes now; the picture stamped with its source's digest (a PNG text chunk
written by `diagram`, so a fresh clone's file times do not matter); BENCHMARKS.md at most 400
lines; every relative link of these pages naming a file that exists. Standard library only.
"""
import hashlib
import json
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCHMARKS = ROOT / "BENCHMARKS.md"
DOCS = ROOT / "docs"
OPENAPI = ROOT / "Public" / "openapi.json"
CONTRACT = DOCS / "http-contract.md"
DOT = DOCS / "architecture.dot"
PNG = DOCS / "architecture.png"

README_WORDS = 2500
PARAGRAPH_WORDS = 100
FIRST_SCREEN_LINES = 40
BENCHMARKS_LINES = 400
FIRST_COMMANDS = ["scripts/serve.sh", "scripts/test.sh"]
STAMP_KEY = "classic-photos-source-sha256"


# --- reading Markdown into paragraphs ---------------------------------------------------------

def table_cells(line):
    """The cells of a table row, split on `|` not escaped as `\\|`."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def blocks(text):
    """(kind, first line number, text) for each paragraph, list item and table cell outside code
    fences; headings are left out. Kind is "paragraph", "item" or "cell"."""
    found = []
    current, start, kind = [], 0, "paragraph"
    fenced = False

    def close():
        nonlocal current
        if current:
            found.append((kind, start, " ".join(current)))
        current = []

    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            fenced = not fenced
            continue
        if fenced:
            continue
        if not stripped or stripped.startswith("#"):
            close()
            continue
        if stripped.startswith("|"):
            close()
            if not re.fullmatch(r"\|?[\s:|-]+\|?", stripped):
                found.extend(("cell", number, cell) for cell in table_cells(stripped))
            continue
        # A numbered line interrupts a paragraph only as "1." (as in CommonMark): "8080. The" goes on.
        if re.match(r"[-*+]\s", stripped) or (re.match(r"\d+\.\s", stripped)
                                              and (not current or kind == "item" or stripped.startswith("1."))):
            close()
            current, start, kind = [re.sub(r"^([-*+]|\d+\.)\s+", "", stripped)], number, "item"
            continue
        if not current:
            start, kind = number, "paragraph"
        current.append(stripped)
    close()
    return found


def words(text):
    return len(text.split())


def longest(found, kind_filter):
    chosen = [b for b in found if b[0] in kind_filter]
    return max(chosen, key=lambda b: words(b[2]), default=(None, 0, ""))


def over_limit(path, found):
    return [f"{path.relative_to(ROOT)}:{line}: a {kind} of {words(text)} words (at most {PARAGRAPH_WORDS}): "
            f"{' '.join(text.split()[:8])} ..." for kind, line, text in found if words(text) > PARAGRAPH_WORDS]


# --- the HTTP contract page --------------------------------------------------------------------

def sentences_in_paragraphs(text, limit=PARAGRAPH_WORDS):
    """Text as paragraphs of at most `limit` words, broken between sentences (a sentence longer
    than that stays whole, and the check then names it)."""
    pieces = re.split(r"(?<=[.!?:;)])\s+(?=[A-Z`(])", " ".join(text.split()))
    paragraphs, current = [], []
    for piece in pieces:
        if current and words(" ".join(current + [piece])) > limit:
            paragraphs.append(" ".join(current))
            current = []
        current.append(piece)
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


def reference_name(reference):
    return reference.rsplit("/", 1)[-1]


def schema_text(schema):
    """A schema's type in a few words: its reference, its type, its values."""
    if not schema:
        return ""
    if "$ref" in schema:
        return f"[{reference_name(schema['$ref'])}](#{reference_name(schema['$ref']).lower()})"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    kind = schema.get("type", "")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array":
        return f"array of {schema_text(schema.get('items', {}))}"
    for options in ("oneOf", "anyOf"):
        if options in schema:
            return " or ".join(schema_text(option) for option in schema[options])
    bounds = [f"{schema['minimum']}" if "minimum" in schema else "", f"{schema['maximum']}" if "maximum" in schema else ""]
    if any(bounds) and schema.get("maximum", 0) < 2 ** 53:
        kind += f" {bounds[0] or '...'}-{bounds[1] or '...'}"
    return kind


def resolve(document, item):
    if "$ref" in item:
        node = document
        for part in item["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return node, reference_name(item["$ref"])
    return item, None


def anchor(method, path):
    return re.sub(r"[^a-z0-9 _-]", "", f"{method} {path}".lower()).replace(" ", "-")


def contract_page(document):
    out = [
        "# HTTP contract",
        "",
        "Generated by `scripts/docs.py contract` from [`Public/openapi.json`](../Public/openapi.json)"
        " (served at `GET /openapi.json`); do not edit it by hand: change the OpenAPI document and run"
        " the script again. `scripts/docs.py check` (run by the tests) fails when this page differs from"
        " what the document makes. A Swift test checks that the document names exactly the server's routes,"
        " and the hostile suite runs schemathesis against the bare server with it.",
        "",
    ]
    out += [p + "\n" for p in sentences_in_paragraphs(document["info"].get("description", ""))]
    out += ["## Routes", "", "| request | what it does | answers |", "|---|---|---|"]
    operations = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "delete", "patch", "head"):
                operations.append((method.upper(), path, operation))
    for method, path, operation in operations:
        codes = ", ".join(f"`{code}`" for code in operation.get("responses", {}))
        out.append(f"| [`{method} {path}`](#{anchor(method, path)}) | {cell(operation.get('summary', ''))} | {codes} |")
    out.append("")
    for method, path, operation in operations:
        out += [f"### {method} {path}", ""]
        out += [p + "\n" for p in sentences_in_paragraphs(operation.get("summary", ""))]
        out += [p + "\n" for p in sentences_in_paragraphs(operation.get("description", ""))]
        parameters = [resolve(document, p)[0] for p in operation.get("parameters", [])]
        if parameters:
            out += ["| parameter | in | type | what |", "|---|---|---|---|"]
            for parameter in parameters:
                name = f"`{parameter['name']}`" + (" (required)" if parameter.get("required") else "")
                out.append(f"| {name} | {parameter.get('in', '')} | {schema_text(parameter.get('schema'))} |"
                           f" {cell(parameter.get('description', ''))} |")
            out.append("")
        body = operation.get("requestBody")
        if body:
            body, _ = resolve(document, body)
            for media, content in body.get("content", {}).items():
                text = f"Body ({media}): {schema_text(content.get('schema'))}."
                if body.get("description"):
                    text += " " + " ".join(body["description"].split())
                out += [p + "\n" for p in sentences_in_paragraphs(text)]
        out += ["| answer | what |", "|---|---|"]
        for code, response in operation.get("responses", {}).items():
            response, shared = resolve(document, response)
            media = ", ".join(f"{m}: {schema_text(c.get('schema'))}" for m, c in response.get("content", {}).items())
            text = cell(response.get("description", "")) + (f" ({media})" if media else "")
            out.append(f"| `{code}` | {text} |")
        out.append("")
    schemas = document.get("components", {}).get("schemas", {})
    if schemas:
        out += ["## Schemas", ""]
        for name, schema in schemas.items():
            out += [f"### {name}", ""]
            if schema.get("description"):
                out += [p + "\n" for p in sentences_in_paragraphs(schema["description"])]
            properties = schema.get("properties", {})
            if properties:
                required = set(schema.get("required", []))
                out += ["| field | type | what |", "|---|---|---|"]
                for field, spec in properties.items():
                    label = f"`{field}`" + (" (required)" if field in required else "")
                    out.append(f"| {label} | {schema_text(spec)} | {cell(spec.get('description', ''))} |")
                out.append("")
            elif not schema.get("description"):
                out += [f"{schema_text(schema)}.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def contract(check_only):
    made = contract_page(json.loads(OPENAPI.read_text()))
    if check_only:
        if not CONTRACT.exists() or CONTRACT.read_text() != made:
            return [f"{CONTRACT.relative_to(ROOT)} differs from what Public/openapi.json makes: run scripts/docs.py contract"]
        return []
    CONTRACT.write_text(made)
    print(f"wrote {CONTRACT.relative_to(ROOT)}")
    return []


# --- the architecture picture ------------------------------------------------------------------

def png_chunks(data):
    position = 8
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        yield kind, data[position + 8:position + 8 + length], position
        position += 12 + length


def png_stamp(data):
    for kind, body, _ in png_chunks(data):
        if kind == b"tEXt" and body.startswith(STAMP_KEY.encode() + b"\0"):
            return body.split(b"\0", 1)[1].decode()
    return None


def diagram():
    """Renders the .dot with Graphviz and stamps the PNG with the source's digest (a tEXt chunk)."""
    subprocess.run(["dot", "-Tpng", "-Gdpi=96", str(DOT), "-o", str(PNG)], check=True)
    data = PNG.read_bytes()
    digest = hashlib.sha256(DOT.read_bytes()).hexdigest()
    body = STAMP_KEY.encode() + b"\0" + digest.encode()
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    end = next(position for kind, _, position in png_chunks(data) if kind == b"IEND")
    PNG.write_bytes(data[:end] + chunk + data[end:])
    print(f"wrote {PNG.relative_to(ROOT)} from {DOT.relative_to(ROOT)} (sha256 {digest[:12]})")


# --- the checks --------------------------------------------------------------------------------

def slugs(text):
    """The anchors GitHub gives a page's headings (outside code fences)."""
    found, fenced = set(), False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            heading = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^a-z0-9 _-]", "", heading).replace(" ", "-"))
    return found


def links(path, text):
    """Relative links of a Markdown page whose file, or whose heading in a Markdown file, is missing."""
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, fragment = target.partition("#")
        linked = (path.parent / file) if file else path
        if not linked.exists():
            missing.append(f"{path.relative_to(ROOT)}: links {target}, which does not exist")
        elif fragment and linked.suffix == ".md" and fragment not in slugs(linked.read_text()):
            missing.append(f"{path.relative_to(ROOT)}: links {target}, a heading {linked.name} does not have")
    return missing


def check():
    failures = []
    text = README.read_text()
    found = blocks(text)
    total = words(text)
    kind, line, paragraph = longest(found, ("paragraph", "item"))
    _, cell_line, table_cell = longest(found, ("cell",))
    print(f"README.md: {total} words (at most {README_WORDS}), {len(text.splitlines())} lines")
    print(f"README.md: longest paragraph {words(paragraph)} words (line {line}), "
          f"longest table cell {words(table_cell)} words (line {cell_line}); at most {PARAGRAPH_WORDS}")
    if total > README_WORDS:
        failures.append(f"README.md has {total} words, more than {README_WORDS}")
    failures += over_limit(README, found)

    lines = text.split("\n")
    fence = [i for i, l in enumerate(lines) if l.strip().startswith("```")][:2]
    commands = [l.split("#", 1)[0].split()[0] for l in lines[fence[0] + 1:fence[1]] if l.strip()] if len(fence) == 2 else []
    if commands != FIRST_COMMANDS:
        failures.append(f"README.md's first code block runs {commands}, not {FIRST_COMMANDS}")
    screen = "\n".join(lines[:FIRST_SCREEN_LINES])
    for needed, what in (("--host", "how to let others in (--host)"), ("Present", "how to present to a room"),
                         ("docs/screenshot.png", "the screenshot")):
        if needed not in screen:
            failures.append(f"README.md's first {FIRST_SCREEN_LINES} lines do not say {what} ({needed!r})")

    if not DOT.exists() or not PNG.exists():
        failures.append(f"{DOT.relative_to(ROOT)} and {PNG.relative_to(ROOT)} must both exist")
    else:
        digest = hashlib.sha256(DOT.read_bytes()).hexdigest()
        if png_stamp(PNG.read_bytes()) != digest:
            failures.append(f"{PNG.relative_to(ROOT)} was not rendered from the current {DOT.relative_to(ROOT)}: "
                            "run scripts/docs.py diagram")
    if "docs/architecture.png" not in text:
        failures.append("README.md does not show docs/architecture.png")

    pages = sorted(DOCS.glob("*.md"))
    for page in pages:
        page_text = page.read_text()
        page_blocks = blocks(page_text)
        failures += over_limit(page, page_blocks)
        failures += links(page, page_text)
        _, page_line, page_longest = longest(page_blocks, ("paragraph", "item", "cell"))
        print(f"{page.relative_to(ROOT)}: {words(page_text)} words, longest paragraph or cell "
              f"{words(page_longest)} words (line {page_line})")
    failures += links(README, text)
    failures += contract(check_only=True)

    bench = BENCHMARKS.read_text()
    bench_lines = len(bench.splitlines())
    print(f"BENCHMARKS.md: {bench_lines} lines (at most {BENCHMARKS_LINES})")
    if bench_lines > BENCHMARKS_LINES:
        failures.append(f"BENCHMARKS.md has {bench_lines} lines, more than {BENCHMARKS_LINES}")
    failures += over_limit(BENCHMARKS, blocks(bench))
    failures += links(BENCHMARKS, bench)

    for failure in failures:
        print("FAIL " + failure)
    print("docs check: " + ("ok" if not failures else f"{len(failures)} failures"))
    return failures


def main(arguments):
    if arguments[:1] == ["contract"]:
        return 1 if contract(check_only="--check" in arguments) else 0
    if arguments[:1] == ["diagram"]:
        diagram()
        return 0
    if arguments[:1] == ["check"]:
        return 1 if check() else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
