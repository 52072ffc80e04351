"""Four search-interest exports, one per search term: a date (daily) and the term's search
frequency (0-100, relative to its peak), from 2017 on.

Each export ends with blank lines (NULL date) and some days are missing from one term's
export; interest jumps for some terms in spring 2020; the terms' exports have different
lengths (one term only from 2019).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _export(rng: np.random.Generator, weeks: pd.DatetimeIndex, term: str, jump: float) -> pd.DataFrame:
    n = len(weeks)
    level = rng.uniform(10, 40) + jump * (weeks >= pd.Timestamp("2020-03-01")) + rng.normal(0, 5, n)
    frequency = np.clip(np.round(level), 0, 100).astype("int64")
    frame = pd.DataFrame({"date": weeks, "term": term, "SearchFrequency": frequency})
    frame = frame[rng.random(n) > 0.03]
    blank = pd.DataFrame({"date": [pd.NaT] * 2, "term": [None, None], "SearchFrequency": [0, 0]})
    return pd.concat([frame, blank], ignore_index=True)


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    weeks = pd.date_range("2017-01-01", periods=n, freq="D")
    return {"searches_0": _export(rng, weeks, "remote work", 40.0),
            "searches_7": _export(rng, weeks, "home office", 30.0),
            "searches_14": _export(rng, weeks[n // 3:], "video call", 55.0),
            "searches_21": _export(rng, weeks, "commute", -15.0)}
