"""Products by their first and last price: `prices`, rows in groups of about 6 (`grp`), a row
number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "day": rng.integers(0, 90, n),
        "price": rng.integers(0, 5, n).astype(float),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"prices": grouped(rows, seed, 6, columns, nulls=("day",))}
