"""Each rider's shortest trip, when between 10 and 60 minutes: `trips`, rows in groups of about 6
(`grp`), a row number `seq` and the columns the fold reads, with NULLs in duration. A trip's
fare (0 to 159) is added to the family's table, since this variant's late filter reads it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "duration": rng.integers(0, 120, n),
        "station": rng.integers(0, 30, n),
        "fare": rng.integers(0, 160, n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"trips": grouped(rows, seed, 6, columns, nulls=("duration",))}
