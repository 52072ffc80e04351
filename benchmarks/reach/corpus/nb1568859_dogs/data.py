"""The WeRateDogs enhanced twitter archive (the columns of twitter-archive-enhanced.csv).

Each tweet rates a dog, numerator usually 10-14 over 10 with a few outliers (420/10, 0/10,
ratings of groups over 50, 80, ...); the dog's name is "None" or a misparsed word ("a")
for many; each stage column holds its own name or "None", mostly "None", a few tweets name
two stages; replies and retweets have their ids, the others NULL.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    denominator = np.where(rng.random(n) < 0.02, rng.choice([50, 80, 110, 11], n), 10)
    numerator = np.where(denominator == 10, rng.choice(np.arange(5, 15), n, p=[0.02, 0.03, 0.05, 0.08, 0.1, 0.17,
                                                                           0.2, 0.2, 0.12, 0.03]),
                         denominator + rng.integers(-10, 30, n))
    numerator[rng.random(n) < 0.005] = 420
    stage = {s: np.where(rng.random(n) < p, s, "None") for s, p in
             (("doggo", 0.04), ("floofer", 0.005), ("pupper", 0.11), ("puppo", 0.015))}
    reply = rng.random(n) < 0.03
    retweet = rng.random(n) < 0.08
    ids = np.sort(rng.choice(np.arange(666020888022790144, 892420643555336192, 10**9), n, replace=False))[::-1]
    frame = pd.DataFrame({
        "tweet_id": ids.astype("int64"),
        "in_reply_to_status_id": np.where(reply, rng.uniform(6.6e17, 8.9e17, n), np.nan),
        "in_reply_to_user_id": np.where(reply, 4196983835.0, np.nan),
        "timestamp": [f"2017-0{rng.integers(1, 8)}-{rng.integers(10, 28)} 16:00:0{i % 10} +0000" for i in range(n)],
        "source": "Twitter for iPhone",
        "text": [f"This is a dog. {a}/{b}" for a, b in zip(numerator, denominator)],
        "retweeted_status_id": np.where(retweet, rng.uniform(6.6e17, 8.9e17, n), np.nan),
        "retweeted_status_user_id": np.where(retweet, 4196983835.0, np.nan),
        "retweeted_status_timestamp": [f"2017-0{rng.integers(1, 8)}-01 00:00:00 +0000" if r else None for r in retweet],
        "expanded_urls": [None if rng.random() < 0.03 else f"https://twitter.com/dog_rates/status/{i}" for i in ids],
        "rating_numerator": numerator.astype("int64"), "rating_denominator": denominator.astype("int64"),
        "name": rng.choice(["None", "a", "Charlie", "Lucy", "Cooper", "Oliver", "Tucker", "Penny"], n,
                           p=[0.3, 0.03, 0.12, 0.12, 0.12, 0.11, 0.1, 0.1]),
        **stage,
    })
    return {"twitter_archive_enhanced": frame}
