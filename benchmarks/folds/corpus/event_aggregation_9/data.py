"""Devices whose readings spread below 5 and above 10: `events`, rows in groups of about 8 (`grp`),
a row number `seq` and the columns the fold reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "type": rng.integers(1, 4, n),
        "value": rng.integers(0, 16, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"events": grouped(rows, seed, 8, columns, nulls=())}
