"""Groups whose two lowest scores are both under 50: `scores`, rows in groups of about 3 (`grp`), a
row number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "a": rng.integers(0, 100, n),
        "b": rng.integers(0, 100, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"scores": grouped(rows, seed, 3, columns, nulls=())}
