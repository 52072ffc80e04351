"""Merchants by the total of their large sales: `sales`, rows in groups of about 8 (`grp`), a row
number `seq` and the columns the fold reads. About one sale in 500 is 60,000,000,000, so that
some merchant's total reaches the 50,000,000,000 bound of this variant's late filter.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "amount": np.where(rng.random(n) < 0.002, 6e10,
                           np.where(rng.random(n) < 0.03, np.nan, rng.integers(0, 1000, n).astype(float))),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"sales": grouped(rows, seed, 8, columns, nulls=())}
