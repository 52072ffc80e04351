"""The oldest member of each household, when 21 or over: `members`, rows in groups of about 4
(`grp`), a row number `seq` and the columns the fold reads, with NULLs in age.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "age": rng.integers(0, 90, n),
        "income": rng.integers(0, 100, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"members": grouped(rows, seed, 4, columns, nulls=("age",))}
