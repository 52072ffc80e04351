"""Wikidata property label edits: one row per (timestamp, property, language) label
addition, as exported from the edit history.

Properties get labels in many languages, English, German and French first, then a long tail
of languages (skew); a property has at most one label per language, but some edits were
exported twice (the same row twice); a few rows have no language (edits of aliases).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "ru", "ja", "pt", "pl", "sv", "uk", "zh", "ar", "ca", "cs", "fi",
             "he", "hu", "ko", "nb", "ro", "tr", "fa", "da", "eo", "el", "id", "sr", "vi", "bn", "gl", "hy", "ms",
             "be", "lt", "sk", "sl", "et", "eu", "bg", "hr", "ka", "lv", "mk", "ta", "th", "hi", "ur", "sq", "az",
             "be-tarask", "en-gb", "en-ca", "pt-br", "zh-hans", "zh-hant", "de-ch", "ast", "oc"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_properties = max(n // 12, 10)
    weights = 1.0 / np.arange(1, len(LANGUAGES) + 1) ** 1.1
    weights[:3] = [3.0, 1.6, 1.4]
    records = []
    for p in range(n_properties):
        k = min(int(rng.geometric(0.09)), len(LANGUAGES))
        langs = rng.choice(LANGUAGES, k, replace=False, p=weights / weights.sum())
        start = pd.Timestamp("2013-01-01") + pd.Timedelta(days=int(rng.integers(0, 2000)))
        for lang in langs:
            stamp = start + pd.Timedelta(minutes=int(rng.integers(0, 500000)))
            records.append((stamp, f"P{p + 1}", lang))
    frame = pd.DataFrame(records, columns=["timestamp", "property", "language"])
    no_language = rng.random(len(frame)) < 0.02
    frame.loc[no_language, "language"] = None
    frame = pd.concat([frame, frame.sample(max(len(frame) // 50, 1), random_state=seed)], ignore_index=True)
    return {"property_labels": frame}
