"""Figure Eight's disaster response messages and their categories (the two CSV files of the
well-known ETL exercise).

messages: id, the message in English, the original text (missing when the message was
written in English), and the genre (direct, news, social). categories: id and one text of 36
`name-value` pairs separated by `;`. Some ids appear twice in either file (as in the public
data); a few messages have no categories row. Values are mostly 0; `related` is 1 for about
three in four and sometimes 2; `water` and `food` requests are rarer.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CATEGORIES = ["related", "request", "offer", "aid_related", "medical_help", "medical_products", "search_and_rescue",
              "security", "military", "child_alone", "water", "food", "shelter", "clothing", "money", "missing_people",
              "refugees", "death", "other_aid", "infrastructure_related", "transport", "buildings", "electricity",
              "tools", "hospitals", "shops", "aid_centers", "other_infrastructure", "weather_related", "floods", "storm",
              "fire", "earthquake", "cold", "other_weather", "direct_report"]
SHARE = {"related": 0.76, "request": 0.17, "aid_related": 0.42, "water": 0.07, "food": 0.11, "shelter": 0.09,
         "weather_related": 0.28, "direct_report": 0.2}


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    ids = np.sort(rng.choice(np.arange(2, 4 * n), n, replace=False)).astype("int64")
    genre = rng.choice(["news", "direct", "social"], n, p=[0.5, 0.41, 0.09])
    messages = pd.DataFrame({
        "id": ids,
        "message": [f"message {i} about {w}" for i, w in zip(ids, rng.choice(["water", "food", "tents", "help"], n))],
        "original": [None if g == "news" or rng.random() < 0.3 else f"orijinal {i}" for i, g in zip(ids, genre)],
        "genre": genre,
    })
    texts = []
    for _ in range(n):
        parts = []
        for name in CATEGORIES:
            value = int(rng.random() < SHARE.get(name, 0.03))
            if name == "related" and rng.random() < 0.01:
                value = 2
            parts.append(f"{name}-{value}")
        texts.append(";".join(parts))
    categories = pd.DataFrame({"id": ids, "categories": texts})
    categories = categories.drop(index=rng.choice(n, max(n // 100, 1), replace=False))  # no categories row
    twice = rng.choice(len(categories), max(n // 60, 1), replace=False)
    categories = pd.concat([categories, categories.iloc[twice]], ignore_index=True)
    messages = pd.concat([messages, messages.iloc[rng.choice(n, max(n // 80, 1), replace=False)]], ignore_index=True)
    return {"disaster_messages": messages, "disaster_categories": categories}
