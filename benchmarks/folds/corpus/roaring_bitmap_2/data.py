"""Users whose valid ranges cover 0, 1 and 2: `ranges`, rows in groups of about 6 (`grp`), a row
number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "lo": rng.integers(-2, 5, n),
        "hi": rng.integers(-1, 6, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"ranges": grouped(rows, seed, 6, columns, nulls=())}
