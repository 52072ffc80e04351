"""Sensors by their lowest and highest reading: `readings`, rows in groups of about 8 (`grp`), a
row number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "x": rng.integers(0, 70, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"readings": grouped(rows, seed, 8, columns, nulls=())}
