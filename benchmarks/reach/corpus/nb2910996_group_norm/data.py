"""The handbook's small frame grown to many rows: a key (skewed: one key has most rows,
one only a few), data1 a count, data2 a small random integer (0-9, so a key's sum of
data2 can be small for the rare keys).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 30)
    keys = ["A", "B", "C", "D", "E", "F"]
    key = rng.choice(keys, n, p=[0.55, 0.25, 0.12, 0.05, 0.02, 0.01])
    data1 = rng.integers(0, 60, n)
    data1[rng.random(n) < 0.05] = 0
    return {"df": pd.DataFrame({"key": key, "data1": data1.astype("int64"),
                                "data2": rng.integers(0, 10, n).astype("int64")})}
