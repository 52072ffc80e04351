"""The latest code-50 sale of each store: `sales`, rows in groups of about 10 (`grp`), a row number
`seq` and the columns the fold reads, with NULLs in code.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "code": rng.choice([50, 10, 20, 30], n, p=[0.4, 0.2, 0.2, 0.2]),
        "qty": rng.integers(0, 60, n),
        "price": rng.integers(30, 60, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"sales": grouped(rows, seed, 10, columns, nulls=("code",))}
