"""The input tables of the fold families: one table each, a few rows per group, with NULLs,
duplicated rows and a unique row number, shuffled.

Every family's data.py calls `grouped` with the columns its fold reads, so the tables share
what a wrong pushdown needs to show: groups that the late filter keeps and drops, rows of a kept
group that the fold ignores, NULLs where the fold reads them, and exact duplicates.

>>> frame = grouped(40, 0, 4, lambda rng, n: {"x": rng.integers(0, 9, n)}, nulls=("x",))
>>> sorted(frame.columns), frame["seq"].is_unique
(['grp', 'seq', 'x'], False)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

NULL_SHARE = 0.05  # a NULL in about one row in twenty of each nullable column
DUPLICATE_SHARE = 0.02  # exact copies of about one row in fifty


def grouped(rows: int, seed: int, per_group: int, columns: Callable[[np.random.Generator, int], dict[str, Any]],
            nulls: Sequence[str] = ()) -> pd.DataFrame:
    """About `rows` rows in groups of `per_group` on average (`grp`, skewed), a row number `seq`
    (unique before the duplicates are added) and the columns `columns(rng, n)` makes; the
    columns named in `nulls` get NULLs (pandas' nullable types, so Parquet stores NULL)."""
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    groups = max(n // per_group, 5)
    frame = pd.DataFrame({"grp": np.minimum(rng.zipf(1.3, n) - 1, groups - 1) % groups,
                          "seq": np.arange(n)})
    # zipf puts most rows in the first groups: spread the rest evenly so most groups are small
    spread = rng.random(n) < 0.7
    frame.loc[spread, "grp"] = rng.integers(0, groups, int(spread.sum()))
    for name, values in columns(rng, n).items():
        frame[name] = values
    for name in nulls:
        frame[name] = _with_nulls(frame[name], rng)
    for name in frame.columns:
        if frame[name].dtype == np.float64:  # a NaN a column's maker put there stays NaN
            frame[name] = _floats(frame[name].to_numpy(), np.zeros(len(frame), dtype=bool))
    copies = frame.sample(frac=DUPLICATE_SHARE, random_state=int(rng.integers(1 << 31)))
    frame = pd.concat([frame, copies], ignore_index=True)
    return frame.sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)


def _with_nulls(column: pd.Series, rng: np.random.Generator) -> pd.Series:
    mask = rng.random(len(column)) < NULL_SHARE
    if pd.api.types.is_bool_dtype(column):
        typed = column.astype("boolean")
    elif pd.api.types.is_integer_dtype(column):
        typed = column.astype("Int64")
    elif pd.api.types.is_float_dtype(column):
        # NULL where the mask says, NaN where the column's maker put one: a NaN is a value Spark
        # reads as one (Float64's own conversion, and Parquet's from a float64 column, would
        # make every NaN a NULL)
        return _floats(column.to_numpy(dtype=float), mask)
    else:
        typed = column.astype(object)
    typed = typed.copy()
    typed[mask] = None
    return typed


def _floats(values: np.ndarray, mask: np.ndarray) -> pd.Series:
    """Doubles that Parquet stores as written: NULL where `mask` is set, NaN where `values` has
    one."""
    return pd.Series(pd.arrays.FloatingArray(values.astype(float), mask))
