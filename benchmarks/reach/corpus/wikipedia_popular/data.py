"""Wikipedia page view counts (the hourly pagecounts files): one row per line, language (the
project code), page title, views in the hour and bytes served, plus the file the line came
from (pagecounts-YYYYMMDD-HH0000.gz, one file per hour), as `input_file_name()` would give it.

Most lines are English; views are heavily skewed (a few pages take hundreds of thousands of
views in an hour, most have one or two); the main page and Special: pages are among the most
viewed; some hours are quiet (no page above a few thousand views).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    hours = [f"20160801-{h:02d}" for h in range(0, 24, 2)]
    hour = rng.choice(len(hours), n)
    quiet = np.isin(hour, rng.choice(len(hours), 4, replace=False))
    language = rng.choice(["en", "de", "fr", "ja", "es", "en.m"], n, p=[0.6, 0.1, 0.08, 0.08, 0.06, 0.08])
    titles = np.array([f"Page_{i}" for i in range(2 * n)] + ["Main Page", "Special:Search", "Special:Random"])
    popularity = 1.0 / np.arange(1, len(titles) + 1) ** 0.8
    popularity[-3:] = popularity[0] * 2
    title = rng.choice(titles, n, p=popularity / popularity.sum())
    views = np.round(np.exp(rng.uniform(0, np.log(400000), n)) * np.where(quiet, 0.01, 1.0)).astype("int64") + 1
    frame = pd.DataFrame({
        "language": language, "title": title, "views": views,
        "size": (views * rng.integers(2000, 60000, n)).astype("int64"),
        "path": [f"file:/data/pagecounts-1/pagecounts-{hours[h]}0000.gz" for h in hour],
    })
    frame = frame.drop_duplicates(subset=["language", "title", "path"])  # one line per page and hour
    return {"pagecounts": frame}
