"""The Billboard Hot 100 of 2000 in its wide form (billboard.csv): year, artist, track,
time ("m:ss", read by the notebook as hours:minutes), genre, date entered, date peaked,
then x1st.week ... x76th.week, the track's rank in each week since it entered (NULL once it
left the chart).

A few dozen hit tracks stay for 20 to 60 weeks and reach the top ten, most tracks stay
for a few weeks low in the chart; some titles are shared by two artists (two rows of one
track name, whose ranks the pivot averages).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TOP = ["(Hot S**t) Country Grammar", "Absolutely (Story Of A Girl)", "Amazed", "Back Here", "Bent", "Breathe",
       "Bring It All To Me", "Case Of The Ex (Whatcha Gonna Do)", "Everything You Want", "Get It On.. Tonite",
       "He Loves U Not", "He Wasn't Man Enough", "Higher", "I Knew I Loved You", "I Try", "I Wanna Know",
       "Independent Women Part I", "Jumpin' Jumpin'", "Kryptonite", "Meet Virginia", "Most Girls",
       "My Love Is Your Love", "Say My Name", "Sexual (Li Da Di)", "That's The Way It Is", "There U Go",
       "Thong Song", "Try Again", "With Arms Wide Open", "You Sang To Me"]


def _ordinal(i: int) -> str:
    suffix = "th" if 10 <= i % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(i % 10, "th")
    return f"x{i}{suffix}.week"


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 80)
    hits = TOP + list(rng.choice(TOP, 6))  # six titles sung by a second artist
    tracks = hits + [f"Track {i}" for i in range(n - len(hits))]
    is_hit = np.array([i < len(hits) for i in range(n)])
    frame = pd.DataFrame({
        "year": np.full(n, 2000, dtype="int64"),
        "artist.inverted": [f"Artist {i}" for i in range(n)], "track": tracks,
        "time": [f"{m}:{s:02d}" for m, s in zip(rng.integers(2, 6, n), rng.integers(0, 60, n))],
        "genre": rng.choice(["Rock", "Rap", "Country", "R&B", "Pop"], n),
        "date.entered": (pd.Timestamp("1999-06-01") + pd.to_timedelta(rng.integers(0, 540, n), "D")).strftime("%Y-%m-%d"),
        "date.peaked": (pd.Timestamp("2000-01-01") + pd.to_timedelta(rng.integers(0, 360, n), "D")).strftime("%Y-%m-%d"),
    })
    weeks = np.where(is_hit, rng.integers(10, 60, n), rng.integers(1, 20, n))
    best_rank = np.where(is_hit, rng.integers(1, 12, n), rng.integers(30, 100, n))
    for w in range(1, 77):
        progress = np.abs(w - weeks / 2) / np.maximum(weeks / 2, 1)
        rank = np.clip(np.round(best_rank + progress ** 2 * (100 - best_rank) * 0.6 + rng.normal(0, 3, n)), 1, 100)
        frame[_ordinal(w)] = pd.array(np.where(w <= weeks, rank, np.nan), dtype="Int64")
    return {"billboard": frame}
