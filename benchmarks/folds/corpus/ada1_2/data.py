"""Students with graded work: `grades`, rows in groups of about 8 (`grp`), a row number `seq` and
the columns the fold reads, with NULLs in grade.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "grade": rng.integers(0, 6, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"grades": grouped(rows, seed, 8, columns, nulls=("grade",))}
