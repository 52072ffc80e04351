"""An HTTP server's access log in Common Log Format, one line per row in a `value` column
(as a text read gives it), written to Parquet.

Hosts are a mix of names (.gov, .edu, .com, .net) and bare IP addresses, a few very active;
most requests are GETs of pages and images under /images/, answered 200, with 304s, some
404s (mostly images) and a few 500s; content size is "-" for non-200 answers; a handful of
lines are malformed (cut short), as real logs have.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _hosts(rng: np.random.Generator, k: int) -> list[str]:
    tlds = rng.choice([".gov", ".edu", ".com", ".net", "ip"], k, p=[0.08, 0.2, 0.4, 0.2, 0.12])
    return [f"{rng.integers(1, 255)}.{rng.integers(0, 255)}.{rng.integers(0, 255)}.{rng.integers(1, 255)}"
            if t == "ip" else f"host{i}.site{i % 37}{t}" for i, t in enumerate(tlds)]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    hosts = _hosts(rng, max(n // 8, 10))
    activity = rng.pareto(1.2, len(hosts)) + 0.1
    host = rng.choice(hosts, n, p=activity / activity.sum())
    image = rng.random(n) < 0.55
    pages = ["/", "/history/apollo/", "/shuttle/countdown/", "/shuttle/missions/sts-71/", "/facts/about.html"]
    endpoint = np.where(image, [f"/images/img{i}.gif" for i in rng.integers(0, 60, n)], rng.choice(pages, n))
    status = np.where(image, rng.choice([200, 304, 404], n, p=[0.8, 0.12, 0.08]),
                      rng.choice([200, 304, 404, 500], n, p=[0.85, 0.1, 0.03, 0.02]))
    size = np.where(status == 200, rng.integers(100, 80000, n).astype(str), "-")
    method = rng.choice(["GET", "HEAD", "POST"], n, p=[0.97, 0.02, 0.01])
    day, hour = rng.integers(1, 32, n), rng.integers(0, 24, n)
    minute, second = rng.integers(0, 60, n), rng.integers(0, 60, n)
    lines = [f'{h} - - [{d:02d}/Aug/1995:{hh:02d}:{mm:02d}:{ss:02d} -0400] "{m} {e} HTTP/1.0" {s} {z}'
             for h, d, hh, mm, ss, m, e, s, z in zip(host, day, hour, minute, second, method, endpoint, status, size)]
    for i in rng.choice(n, max(n // 500, 1), replace=False):
        lines[i] = lines[i][:rng.integers(10, 40)]  # a line cut short
    return {"access_log": pd.DataFrame({"value": lines})}
