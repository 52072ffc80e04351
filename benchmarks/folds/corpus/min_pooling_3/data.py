"""Cells whose complete readings pool to the given minima: `readings`, rows in groups of about 6
(`grp`), a row number `seq` and the columns the fold reads, with NULLs in c0, c1, c2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "c0": rng.integers(0, 20, n),
        "c1": rng.integers(0, 30, n),
        "c2": rng.integers(0, 60, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"readings": grouped(rows, seed, 6, columns, nulls=("c0", "c1", "c2"))}
