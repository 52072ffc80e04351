"""Accounts by two banded totals: `ledger`, rows in groups of about 8 (`grp`), a row number `seq`
and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "amount": rng.integers(0, 6, n),
        "level": rng.integers(0, 15, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"ledger": grouped(rows, seed, 8, columns, nulls=())}
