"""The latest in-band tick of each instrument: `ticks`, rows in groups of about 8 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in price.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "low": rng.integers(0, 60, n),
        "price": rng.integers(0, 100, n),
        "volume": rng.integers(0, 200, n),
        "width": rng.integers(0, 40, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"ticks": grouped(rows, seed, 8, columns, nulls=("price",))}
