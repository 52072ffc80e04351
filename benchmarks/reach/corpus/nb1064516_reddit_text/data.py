"""Two scrapes of Reddit posts: one of a subreddit's posts, one of posts found by a search
query (with a `querry` column naming the query).

A post has a self text (`body`, empty or missing for link posts), the text of the article a
link post points to (`article`, missing when it could not be fetched or for self posts) and
its top comments joined into one text (`comments`, missing when there were none). Lengths
are skewed: most texts are short, a few are long.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

WORDS = ["the", "market", "price", "people", "vote", "new", "report", "today", "why", "city",
         "energy", "bank", "says", "climate", "study", "after", "year", "would", "police", "law"]


def _texts(rng: np.random.Generator, n: int, mean_words: float, missing: float, empty: float) -> list:
    lengths = rng.lognormal(np.log(mean_words), 1.0, n).astype(int)
    out: list = []
    for length, u in zip(lengths, rng.random(n)):
        if u < missing:
            out.append(None)
        elif u < missing + empty:
            out.append("")
        else:
            out.append(" ".join(rng.choice(WORDS, max(int(length), 1))))
    return out


def _posts(rng: np.random.Generator, n: int, query: str | None) -> pd.DataFrame:
    link = rng.random(n) < 0.6
    body = _texts(rng, n, 25, 0.2, 0.3)
    body = [None if is_link and rng.random() < 0.5 else ("" if is_link else b) for is_link, b in zip(link, body)]
    article = _texts(rng, n, 120, 0.25, 0.0)
    article = [a if is_link else None for is_link, a in zip(link, article)]
    frame = pd.DataFrame({
        "created": np.round(1.5e9 + rng.uniform(0, 3e7, n), 1),
        "score": rng.geometric(0.02, n).astype("int64"),
        "url": [f"https://www.reddit.com/r/news/comments/{i:06x}" for i in rng.integers(0, 16**6, n)],
        "body": body,
        "title": [" ".join(rng.choice(WORDS, 6)) for _ in range(n)],
        "num_comments": rng.geometric(0.05, n).astype("int64"),
        "article": article,
        "subreddit": rng.choice(["news", "worldnews", "politics"], n),
        "id": [f"{i:06x}" for i in rng.integers(0, 16**6, n)],
        "comments": _texts(rng, n, 60, 0.15, 0.0),
    })
    if query is not None:
        frame.insert(9, "querry", query)
    return frame


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 30)
    return {"reddit_posts": _posts(rng, n, None), "reddit_search": _posts(rng, n // 2, "energy prices")}
