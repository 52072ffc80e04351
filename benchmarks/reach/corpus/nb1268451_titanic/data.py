"""The Titanic passenger list (the 1309-passenger version with lower-case column names).

Cabins are missing for about three in four passengers (mostly third class); deck C holds
first-class passengers; survival depends strongly on sex and class; ages are missing for
about one in five.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    pclass = rng.choice([1, 2, 3], n, p=[0.25, 0.21, 0.54])
    sex = rng.choice(["male", "female"], n, p=[0.64, 0.36])
    deck = np.where(pclass == 1, rng.choice(list("ABCDE"), n, p=[0.1, 0.25, 0.35, 0.15, 0.15]),
                    rng.choice(list("DEFG"), n))
    has_cabin = rng.random(n) < np.select([pclass == 1, pclass == 2], [0.85, 0.1], 0.03)
    cabin = [f"{d}{rng.integers(1, 130)}" if c else None for d, c in zip(deck, has_cabin)]
    survival = np.where(sex == "female", np.select([pclass == 1, pclass == 2], [0.96, 0.89], 0.49),
                        np.select([pclass == 1, pclass == 2], [0.34, 0.15], 0.15))
    age = np.round(rng.normal(30, 14, n).clip(0.2, 80), 1)
    age[rng.random(n) < 0.2] = np.nan
    frame = pd.DataFrame({
        "pclass": pclass.astype("int64"), "survived": (rng.random(n) < survival).astype("int64"),
        "name": [f"Passenger {i}" for i in range(n)], "sex": sex, "age": age,
        "sibsp": rng.poisson(0.5, n).astype("int64"), "parch": rng.poisson(0.4, n).astype("int64"),
        "ticket": [str(t) for t in rng.integers(1000, 400000, n)],
        "fare": np.round(np.where(pclass == 1, rng.gamma(3, 30, n), rng.gamma(2, 8, n)), 4),
        "cabin": cabin, "embarked": rng.choice(["S", "C", "Q"], n, p=[0.7, 0.2, 0.1]),
    })
    return {"titanic": frame}
