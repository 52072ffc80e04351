"""Users who track a condition or a symptom: `checkins`, rows in groups of about 10 (`grp`), a row
number `seq` and the columns the fold reads, with NULLs in trackable_type.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "trackable_type": rng.integers(0, 8, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"checkins": grouped(rows, seed, 10, columns, nulls=("trackable_type",))}
