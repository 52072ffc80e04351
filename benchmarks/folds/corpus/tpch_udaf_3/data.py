"""Customers by their number of urgent orders: `orders`, rows in groups of about 8 (`grp`), a row
number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "priority": rng.choice(["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"], n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"orders": grouped(rows, seed, 8, columns, nulls=())}
