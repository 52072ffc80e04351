"""Samples whose best read has a negative quality: `reads`, rows in groups of about 5 (`grp`), a
row number `seq` and the columns the fold reads. About one read in eight has quality -1, the code
of an unscored read, so that some samples have only unscored reads and a negative best, which this
variant's late filter asks for.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "copies": rng.integers(0, 5, n),
        "quality": np.where(rng.random(n) < 0.125, -1, rng.permutation(n) % 100),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"reads": grouped(rows, seed, 5, columns, nulls=())}
