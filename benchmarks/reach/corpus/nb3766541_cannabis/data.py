"""Leafly's cannabis strain list (Strain, Type, Rating, Effects, Flavor, Description).

Effects and flavors are comma-separated lists of up to five words, "None" when the page
listed none; ratings are skewed high (most 4.0-5.0, some 0 for unrated strains); some
records lack a flavor or a description (NULL); rare effects ("Dry Mouth", "Aroused") and
flavors appear on a handful of strains only, mostly low-rated ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

EFFECTS = ["Relaxed", "Happy", "Euphoric", "Uplifted", "Sleepy", "Creative", "Energetic", "Focused", "Hungry",
           "Talkative", "Tingly", "Giggly", "Aroused", "Dry Mouth"]
EFFECT_P = np.array([20, 19, 17, 15, 8, 9, 8, 7, 6, 4, 5, 4, 1.5, 0.5])
FLAVORS = ["Earthy", "Sweet", "Citrus", "Pungent", "Berry", "Pine", "Woody", "Flowery", "Diesel", "Spicy/Herbal",
           "Lemon", "Skunk", "Blueberry", "Grape", "Tar"]
FLAVOR_P = np.array([18, 17, 10, 9, 8, 8, 7, 6, 5, 5, 4, 4, 3, 3, 0.5])


def _pick(rng: np.random.Generator, words: list[str], p: np.ndarray, k: int) -> str:
    if k == 0:
        return "None"
    return ",".join(rng.choice(words, k, replace=False, p=p / p.sum()))


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    rating = np.round(np.clip(rng.normal(4.4, 0.35, n), 0, 5), 1)
    rating[rng.random(n) < 0.02] = 0.0
    effects = []
    for r in rating:
        p = EFFECT_P.copy()
        if r >= 4.0:
            p[-2:] = 0  # the rare effects are reported on lesser strains
        effects.append(_pick(rng, EFFECTS, p, int(rng.choice([0, 3, 4, 5], p=[0.02, 0.1, 0.18, 0.7]))))
    flavors = [_pick(rng, FLAVORS, FLAVOR_P, int(rng.choice([0, 1, 2, 3], p=[0.03, 0.1, 0.17, 0.7]))) for _ in range(n)]
    frame = pd.DataFrame({
        "Strain": [f"Strain-{i}" for i in range(n)],
        "Type": rng.choice(["hybrid", "indica", "sativa"], n, p=[0.5, 0.3, 0.2]),
        "Rating": rating, "Effects": effects, "Flavor": flavors,
        "Description": [f"A strain described {i}." for i in range(n)],
    })
    frame.loc[rng.random(n) < 0.02, "Flavor"] = None
    frame.loc[rng.random(n) < 0.02, "Description"] = None
    return {"cannabis": frame}
