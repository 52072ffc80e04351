"""Users who bought: `actions`, rows in groups of about 12 (`grp`), a row number `seq` and the
columns the fold reads, with NULLs in type.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "type": rng.integers(1, 7, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"actions": grouped(rows, seed, 12, columns, nulls=("type",))}
