"""Beats with both male and female arrestees: `arrests`, rows in groups of about 6 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in gender.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "gender": rng.choice(["M", "F", "X", "U"], n, p=[0.5, 0.3, 0.1, 0.1]),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"arrests": grouped(rows, seed, 6, columns, nulls=("gender",))}
