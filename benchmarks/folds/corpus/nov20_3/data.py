"""A flag compared with numbers it never takes: `visits`, rows in groups of about 10 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in day.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "day": rng.integers(1, 32, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"visits": grouped(rows, seed, 10, columns, nulls=("day",))}
