"""The best read of each sample, when of high quality: `reads`, rows in groups of about 5 (`grp`),
a row number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "copies": rng.integers(0, 5, n),
        "quality": rng.permutation(n) % 100,
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"reads": grouped(rows, seed, 5, columns, nulls=())}
