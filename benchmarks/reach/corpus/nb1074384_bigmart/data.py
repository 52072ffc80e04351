"""BigMart's sales data: the train and test files (the test file has no sales column).

Each item (FDxxx food, DRxxx drinks, NCxxx non-consumables) is sold in several of ten
outlets; an outlet has one size, missing for three of the outlets (as in the public data,
about 28% of rows); weights are missing for about 17% of rows; a visibility of 0 marks an
unrecorded value; fat content is written five ways.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

OUTLETS = {  # id: (type, size, year)
    "OUT010": ("Grocery Store", None, 1998), "OUT013": ("Supermarket Type1", "High", 1987),
    "OUT017": ("Supermarket Type1", None, 2007), "OUT018": ("Supermarket Type2", "Medium", 2009),
    "OUT019": ("Grocery Store", "Small", 1985), "OUT027": ("Supermarket Type3", "Medium", 1985),
    "OUT035": ("Supermarket Type1", "Small", 2004), "OUT045": ("Supermarket Type1", None, 2002),
    "OUT046": ("Supermarket Type1", "Small", 1997), "OUT049": ("Supermarket Type1", "Medium", 1999),
}
FAT = ["Low Fat", "Regular", "LF", "reg", "low fat"]


def _sales_rows(rng: np.random.Generator, n: int, items: list[str], with_sales: bool) -> pd.DataFrame:
    item = rng.choice(items, n)
    outlet = rng.choice(list(OUTLETS), n)
    item_weight = {i: round(float(w), 2) for i, w in zip(items, rng.uniform(4.5, 21.5, len(items)))}
    weight = np.array([item_weight[i] for i in item])
    weight[rng.random(n) < 0.17] = np.nan
    visibility = np.round(rng.gamma(2.0, 0.03, n), 6)
    visibility[rng.random(n) < 0.06] = 0.0
    frame = pd.DataFrame({
        "Item_ID": item, "Weight": weight, "FatContent": rng.choice(FAT, n, p=[0.55, 0.3, 0.07, 0.05, 0.03]),
        "Visibility": visibility, "MRP": np.round(rng.uniform(31, 267, n), 4),
        "Store_ID": outlet, "Store_Year": np.array([OUTLETS[o][2] for o in outlet], dtype="int32"),
        "Store_Size": [OUTLETS[o][1] for o in outlet], "Store_Type": [OUTLETS[o][0] for o in outlet],
    })
    if with_sales:
        frame["Sales"] = np.round(frame["MRP"] * rng.gamma(2.0, 6.0, n), 4)
    return frame


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    kinds = rng.choice(["FD", "DR", "NC"], max(n // 6, 10), p=[0.72, 0.09, 0.19])
    items = [f"{k}{chr(65 + i % 26)}{i:02d}" for i, k in enumerate(kinds)]
    return {"bundas_train": _sales_rows(rng, n, items, True),
            "bundas_test": _sales_rows(rng, n * 2 // 3, items, False)}
