"""Players whose two best scores are both 100: `scores`, rows in groups of about 5 (`grp`), a row
number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "score": np.where(rng.random(n) < 0.03, np.nan, rng.choice([100.0, 99.5, 80.0, 100.0, 60.0, 101.0], n)),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"scores": grouped(rows, seed, 5, columns, nulls=())}
