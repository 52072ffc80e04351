"""HM Land Registry's price-paid file, read without a header (its first sale became the
column names, as in the notebook).

One row per sale: prices heavy-tailed (log-normal), dearer in London; a London street has
a handful of sales of quite different prices (flats and houses), so a street's mean
depends on each of them; a few sales have no street (NULL); some towns besides London; a
sale can appear twice (a record status "C" correction of an earlier one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TOWNS = ["LONDON", "WARRINGTON", "MANCHESTER", "BRISTOL", "LEEDS"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    town = rng.choice(TOWNS, n, p=[0.5, 0.1, 0.15, 0.15, 0.1])
    streets = [f"{w} {k}" for w in ["ROTHAY", "KINGS", "MARLOES", "CHEYNE", "ELM", "VICTORIA", "HIGH", "PARK",
                                     "CHURCH", "MILL", "STATION", "ORCHARD"] for k in ["ROAD", "STREET", "DRIVE",
                                                                                        "GARDENS", "WALK"]]
    street_level = {s: float(v) for s, v in zip(streets, rng.lognormal(13.8, 0.6, len(streets)))}
    street = rng.choice(streets, n)
    level = np.array([street_level[s] for s in street])
    level = np.where(town == "LONDON", level * 2.5, level * 0.6)
    kind = rng.choice(["F", "T", "S", "D"], n, p=[0.4, 0.3, 0.2, 0.1])
    factor = pd.Series(kind).map({"F": 0.5, "T": 0.9, "S": 1.3, "D": 2.2}).to_numpy()
    price = np.round(level * factor * rng.lognormal(0, 0.35, n), -3).astype("int64")
    street_col = [None if rng.random() < 0.02 else s for s in street]
    dates = pd.Timestamp("1995-01-01") + pd.to_timedelta(rng.integers(0, 9000, n), "D")
    frame = pd.DataFrame({
        "{8355F008-C0A9-55C5-E053-6B04A8C0D090}": [f"{{{i:08X}-C0A9-55C5-E053-6B04A8C0D090}}" for i in range(n)],
        "102000": price,
        "2003-11-25 00:00": dates.strftime("%Y-%m-%d 00:00"),
        "WA5 2PG": [f"SW{rng.integers(1, 20)} {rng.integers(1, 9)}AB" for _ in range(n)],
        "S": kind, "N": rng.choice(["N", "Y"], n, p=[0.9, 0.1]), "L": rng.choice(["F", "L"], n),
        "39": rng.integers(1, 200, n).astype(str), "Unnamed: 8": [None] * n,
        "ROTHAY DRIVE": street_col, "PENKETH": [None] * n, "WARRINGTON": town,
        "WARRINGTON.1": town, "WARRINGTON.2": np.where(town == "LONDON", "GREATER LONDON", "OTHER"),
        "A": rng.choice(["A", "B"], n, p=[0.95, 0.05]), "A.1": "A",
    })
    again = frame.sample(n=n // 50, random_state=int(rng.integers(1 << 31))).assign(**{"A.1": "C"})
    return {"pp_complete": pd.concat([frame, again], ignore_index=True)}
