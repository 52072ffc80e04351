"""Households that bought a listed product: `transactions`, rows in groups of about 8 (`grp`), a
row number `seq` and the columns the fold reads, with NULLs in product_id.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "product_id": rng.zipf(1.3, n).clip(max=60).astype(str),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"transactions": grouped(rows, seed, 8, columns, nulls=("product_id",))}
