"""Customers by a conditional total: `purchases`, rows in groups of about 8 (`grp`), a row number
`seq` and the columns the fold reads, with NULLs in amount, channel.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "amount": rng.integers(0, 2000, n).astype(float),
        "channel": rng.integers(0, 5, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"purchases": grouped(rows, seed, 8, columns, nulls=("amount", "channel"))}
