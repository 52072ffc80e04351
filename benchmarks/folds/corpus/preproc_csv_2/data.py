"""Hospitals by flagged ambulance and import visits: `visits`, rows in groups of about 12 (`grp`),
a row number `seq` and the columns the fold reads, with NULLs in kind.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "kind": rng.choice(["AMB", "IMP", "EMER", "WALK"], n),
        "flag": rng.random(n) < 0.6,
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"visits": grouped(rows, seed, 12, columns, nulls=("kind",))}
