"""Benchmark 4: the thumbnail path beside libvips and Pillow, in one run, on the same inputs.

Inputs: photo-sized JPEGs and PNGs from the sample origin's generated photos. Each contender makes a
160 px high thumbnail, tones it sepia with the same matrix (W3C sepia at 0.8) and encodes it (JPEG
quality 85; PNG when the source has alpha):

  ours     ThumbnailBenchmark --throughput (SepiaRenderer.thumbnail: DCT-scaled decode, resample,
           sepia, encode), CPU time of the process
  Pillow   draft mode (DCT-scaled decode), thumbnail(), convert() with the matrix, save; CPU time
  libvips  vipsthumbnail (shrink-on-load) then `vips recomb` with the matrix and save, VIPS_CONCURRENCY=1;
           CPU time of the two processes, and the same less the CPU of starting two `vips` processes
           that do nothing

Figure: photos per CPU-second (= photos per second per core), JPEG and PNG separately.
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from common import ROOT, SCRATCH, cache_dir, log, table

MATRIX = [
    [0.393 + 0.607 * 0.2, 0.769 - 0.769 * 0.2, 0.189 - 0.189 * 0.2],
    [0.349 - 0.349 * 0.2, 0.686 + 0.314 * 0.2, 0.168 - 0.168 * 0.2],
    [0.272 - 0.272 * 0.2, 0.534 - 0.534 * 0.2, 0.131 + 0.869 * 0.2],
]
HEIGHT = 160
QUALITY = 85


def pick_inputs(jpegs: int, pngs: int) -> list[Path]:
    folder = next(p for p in sorted(cache_dir().iterdir()) if p.name.startswith("sample-photos"))
    chosen: dict[str, list[Path]] = {"jpeg": [], "png": []}
    for path in sorted(folder.iterdir()):
        head = path.read_bytes()[:4]
        kind = "jpeg" if head[:3] == b"\xff\xd8\xff" else "png" if head == b"\x89PNG" else None
        if kind and len(chosen[kind]) < (jpegs if kind == "jpeg" else pngs):
            chosen[kind].append(path)
    return chosen["jpeg"] + chosen["png"]


def kind(path: Path) -> str:
    return "JPEG" if path.read_bytes()[:2] == b"\xff\xd8" else "PNG"


def ours(files: list[Path], seconds: float) -> dict[Path, tuple[int, float]]:
    binary = SCRATCH / "release" / "ThumbnailBenchmark"
    out = subprocess.run([str(binary), "--throughput", str(seconds), *map(str, files)], capture_output=True,
                         text=True, check=True, timeout=seconds * 10 + 60).stdout
    result = {}
    for line in out.splitlines():
        path, runs, cpu = line.rsplit(" ", 2)
        result[Path(path)] = (int(runs), float(cpu))
    return result


def pillow(files: list[Path], seconds: float) -> dict[Path, tuple[int, float]]:
    from PIL import Image
    matrix = tuple(v for row in MATRIX for v in row + [0.0])
    data = {f: f.read_bytes() for f in files}

    def one(raw: bytes) -> bytes:
        image = Image.open(io.BytesIO(raw))
        width = max(1, round(image.width * HEIGHT / image.height))
        image.draft("RGB", (width, HEIGHT))
        alpha = image.mode in ("RGBA", "LA") or "transparency" in image.info
        image = image.convert("RGBA" if alpha else "RGB")
        image = image.resize((width, HEIGHT), Image.BILINEAR, reducing_gap=2.0)
        out = io.BytesIO()
        if alpha:
            r, g, b, a = image.split()
            toned = Image.merge("RGB", (r, g, b)).convert("RGB", matrix)
            toned.putalpha(a)
            toned.save(out, "PNG")
        else:
            image.convert("RGB", matrix).save(out, "JPEG", quality=QUALITY)
        return out.getvalue()

    for f in files:
        one(data[f])
    runs = {f: 0 for f in files}
    spent = {f: 0.0 for f in files}
    while sum(spent.values()) < seconds:
        for f in files:
            start = time.process_time()
            one(data[f])
            spent[f] += time.process_time() - start
            runs[f] += 1
    return {f: (runs[f], spent[f]) for f in files}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def vips(files: list[Path], rounds: int, work: Path) -> tuple[dict[Path, tuple[int, float]], float]:
    env = {**os.environ, "VIPS_CONCURRENCY": "1"}
    rgb = work / "sepia3.mat"
    rgb.write_text("3 3\n" + "\n".join(" ".join(f"{v:.6f}" for v in row) for row in MATRIX) + "\n")
    rgba = work / "sepia4.mat"
    rgba.write_text("4 4\n" + "\n".join(" ".join(f"{v:.6f}" for v in row + [0.0]) for row in MATRIX) + "\n0 0 0 1\n")
    has_alpha = {}
    for f in files:
        out = subprocess.run(["vipsheader", "-f", "bands", str(f)], capture_output=True, text=True, env=env)
        has_alpha[f] = out.stdout.strip() in ("2", "4")

    def one(f: Path) -> None:
        small = work / "small.v"
        subprocess.run(["vipsthumbnail", str(f), "--size", f"x{HEIGHT}", "-o", str(small)], check=True, env=env)
        if has_alpha[f]:
            subprocess.run(["vips", "recomb", str(small), str(work / "out.png"), str(rgba)], check=True, env=env)
        else:
            subprocess.run(["vips", "recomb", str(small), str(work / f"out.jpg[Q={QUALITY}]"), str(rgb)],
                           check=True, env=env)

    for f in files:
        one(f)
    runs = {f: 0 for f in files}
    spent = {f: 0.0 for f in files}
    for _ in range(rounds):
        for f in files:
            start = children_cpu()
            one(f)
            spent[f] += children_cpu() - start
            runs[f] += 1
    # What starting the two processes costs on its own (a 1x1 image through the same two commands).
    tiny = work / "tiny.v"
    subprocess.run(["vips", "black", str(tiny), "1", "1", "--bands", "3"], check=True, env=env)
    start = children_cpu()
    for _ in range(rounds):
        subprocess.run(["vipsthumbnail", str(tiny), "--size", "x1", "-o", str(work / "t2.v")], check=True, env=env)
        subprocess.run(["vips", "recomb", str(tiny), str(work / "t.jpg"), str(rgb)], check=True, env=env)
    startup = (children_cpu() - start) / rounds
    return {f: (runs[f], spent[f]) for f in files}, startup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jpegs", type=int, default=4)
    parser.add_argument("--pngs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=6, help="CPU seconds for ours and for Pillow")
    parser.add_argument("--vips-rounds", type=int, default=8)
    args = parser.parse_args()

    files = pick_inputs(args.jpegs, args.pngs)
    log(f"== 4. thumbnails: {len(files)} sample photos ({args.jpegs} JPEG, {args.pngs} PNG, "
        f"{sum(f.stat().st_size for f in files) / len(files) / 1024:.0f} KiB on average), {HEIGHT} px high, sepia 0.8, "
        f"JPEG q{QUALITY}; photos per CPU-second (photos/s per core)")
    from PIL import __version__ as pillow_version
    vips_version = subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-thumbs-") as work:
        results = {"ours": ours(files, args.seconds), f"Pillow {pillow_version}": pillow(files, args.seconds)}
        vips_result, startup = vips(files, args.vips_rounds, Path(work))
    results[f"{vips_version} CLI"] = vips_result
    results["libvips less process start"] = {f: (n, max(1e-9, cpu - n * startup)) for f, (n, cpu) in vips_result.items()}

    rows = []
    rates: dict[str, dict[str, float]] = {}
    for name, per_file in results.items():
        row = [name]
        for group in ("JPEG", "PNG"):
            runs = sum(n for f, (n, _) in per_file.items() if kind(f) == group)
            cpu = sum(c for f, (_, c) in per_file.items() if kind(f) == group)
            rate = runs / cpu if cpu else float("nan")
            rates.setdefault(name, {})[group] = rate
            row += [f"{rate:.1f}", f"{1000 / rate:.1f} ms"]
        rows.append(row)
    log(table(["", "JPEG photos/s/core", "ms/photo", "PNG photos/s/core", "ms/photo"], rows))
    log(f"  (libvips: {startup * 1000:.1f} ms of CPU per photo is starting vipsthumbnail and vips; the last row "
        f"takes it off)")
    for group in ("JPEG", "PNG"):
        mine = rates["ours"][group]
        others = {k: v[group] for k, v in rates.items() if k not in ("ours", f"{vips_version} CLI")}
        verdict = "met" if all(mine > v for v in others.values()) else "MISSED"
        log(f"target {group}: faster than Pillow and libvips (less process start): ours {mine:.1f} vs "
            + ", ".join(f"{k} {v:.1f}" for k, v in others.items()) + f": {verdict}")


if __name__ == "__main__":
    main()
