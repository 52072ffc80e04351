"""Campaigns by capped attribution points: `touches`, rows in groups of about 6 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in points.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "points": rng.integers(-3, 8, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"touches": grouped(rows, seed, 6, columns, nulls=("points",))}
