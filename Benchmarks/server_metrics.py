"""The server's own latency figures, read from its /metrics as Prometheus would (issue 61).

`scrape` reads the exposition text; `Histograms.between(before, after, name, by)` takes the difference
of a histogram's cumulative buckets over a run, summed by one label (a route, a stream kind); and
`quantile` estimates a quantile from buckets as Prometheus' histogram_quantile does (linear within the
bucket it falls in; in the +Inf bucket, the largest finite bound). So a benchmark prints the server's
wait beside its client's, and the two can be told apart.
"""
from __future__ import annotations

import math
import re
import ssl
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> dict[tuple[str, frozenset], float]:
    """Samples by (name, labels) from the text exposition format."""
    samples = {}
    for line in text.splitlines():
        if line.startswith("#") or not (match := SAMPLE.match(line)):
            continue
        name, labels, value = match.groups()
        samples[(name, frozenset(LABEL.findall(labels or "")))] = float(value)
    return samples


def scrape(port: int, tls: bool = False, host: str = "127.0.0.1") -> dict[tuple[str, frozenset], float]:
    """GET /metrics of the server on `port`, parsed."""
    context = ssl._create_unverified_context() if tls else None
    with urllib.request.urlopen(f"{'https' if tls else 'http'}://{host}:{port}/metrics", timeout=30, context=context) as response:
        return parse(response.read().decode())


def between(before: dict, after: dict, name: str, by: tuple[str, ...]) -> dict[str, list[tuple[float, float]]]:
    """Histogram `name`'s buckets gained from `before` to `after`, summed by the labels `by` (all in one,
    "", for none): for each of their values (joined by a space), (upper bound, cumulative count) in bound
    order, +Inf last."""
    summed: dict[str, dict[float, float]] = {}
    for (sample, labels), value in after.items():
        if sample != f"{name}_bucket":
            continue
        fields = dict(labels)
        bound = math.inf if fields["le"] == "+Inf" else float(fields["le"])
        gained = value - before.get((sample, labels), 0.0)
        group = summed.setdefault(" ".join(fields.get(label, "") for label in by), {})
        group[bound] = group.get(bound, 0.0) + gained
    return {key: sorted(buckets.items()) for key, buckets in summed.items()}


def count(buckets: list[tuple[float, float]]) -> float:
    """How many were observed: the +Inf bucket's count."""
    return buckets[-1][1] if buckets else 0.0


def quantile(q: float, buckets: list[tuple[float, float]]) -> float:
    """The q-quantile (0...1) of cumulative `buckets`, as histogram_quantile estimates it; NaN when empty."""
    total = count(buckets)
    if total <= 0:
        return math.nan
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, cumulative in buckets:
        if cumulative >= rank:
            if math.isinf(bound):
                return lower_bound  # past the largest finite bound: it is all that can be said
            if cumulative == lower_count:
                return bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (cumulative - lower_count)
        lower_bound, lower_count = bound, cumulative
    return lower_bound


def figures(before: dict, after: dict, name: str, by: tuple[str, ...]) -> dict[str, tuple[float, float, float]]:
    """For each value of the labels `by` (as `between`): (count, p50, p99) of histogram `name` over the run, in seconds."""
    return {key: (count(buckets), quantile(0.5, buckets), quantile(0.99, buckets))
            for key, buckets in between(before, after, name, by).items() if count(buckets) > 0}
