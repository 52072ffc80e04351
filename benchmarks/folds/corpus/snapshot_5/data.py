"""The latest snapshot of each key: `snapshots`, rows in groups of about 5 (`grp`), a row number
`seq` and the columns the fold reads, with NULLs in version.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "version": rng.integers(0, 50, n),
        "value": rng.integers(0, 900, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"snapshots": grouped(rows, seed, 5, columns, nulls=("version",))}
