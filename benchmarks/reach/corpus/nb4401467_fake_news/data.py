"""Kaggle's "Getting Real about Fake News" crawl (fake.csv): one row per post of a site
flagged by the BS Detector, with its author, publication time (ISO text with an offset),
title, text, language, country, site and flag type.

Most posts are English and from the U.S.; days cluster around the 2016 election (October
26 and 27 among them); texts vary from a few words to several thousand (log-normal); some
posts have no title or no author (NULL); a post can be crawled twice (an exact duplicate
row).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

WORDS = ["the", "election", "vote", "clinton", "trump", "media", "report", "state", "people", "news", "said"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    language = rng.choice(["english", "russian", "german", "spanish"], n, p=[0.85, 0.06, 0.05, 0.04])
    country = rng.choice(["US", "GB", "RU", "DE", "CA"], n, p=[0.75, 0.08, 0.06, 0.05, 0.06])
    day = pd.Timestamp("2016-10-20") + pd.to_timedelta(rng.integers(0, 12, n), "D")
    published = [(d + pd.Timedelta(minutes=int(m))).strftime("%Y-%m-%dT%H:%M:00.000+03:00")
                 for d, m in zip(day, rng.integers(0, 1440, n))]
    words = np.clip(rng.lognormal(6.0, 0.9, n).astype(int), 1, 6000)
    text = [" ".join(rng.choice(WORDS, w)) + (" " if rng.random() < 0.1 else "") for w in words]
    title = [None if rng.random() < 0.04 else f"Headline {i}" for i in range(n)]
    author = [None if rng.random() < 0.15 else f"Author {rng.integers(0, 200)}" for _ in range(n)]
    frame = pd.DataFrame({
        "doc_id": [f"{i:040x}" for i in range(n)], "ord_in_thread": np.zeros(n, dtype="int64"),
        "author": author, "published": published, "title": title, "text": text, "language": language,
        "site_url": rng.choice(["100percentfedup.com", "abeldanger.net", "activistpost.com", "naturalnews.com"], n),
        "country": country, "thread_title": title,
        "type": rng.choice(["bs", "conspiracy", "bias", "satire", "hate", "fake"], n,
                           p=[0.6, 0.12, 0.1, 0.08, 0.05, 0.05]),
    })
    twice = frame.iloc[rng.choice(n, n // 25, replace=False)]
    return {"fake": pd.concat([frame, twice], ignore_index=True)}
