"""The oldest member of each household, when 21 or over: `members`, rows in groups of about 4
(`grp`), a row number `seq` and the columns the fold reads, with NULLs in age. A member's name
and requisite (one of four labels) are added to the family's table, since this variant's late
filter reads them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped

NAMES = ["Alice", "Bob", "Charlie", "David", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj",
         "Olivia", "Peggy", "Quentin", "Rupert", "Sybil", "Trent", "Uma", "Victor", "Wendy", "Xander", "Yvonne", "Zack"]


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "age": rng.integers(0, 90, n),
        "income": rng.integers(0, 100, n),
        "name": rng.choice(NAMES, n),
        "requisite": rng.choice(["Laugh", "Twist", "Smile", "Frown"], n),
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"members": grouped(rows, seed, 4, columns, nulls=("age",))}
