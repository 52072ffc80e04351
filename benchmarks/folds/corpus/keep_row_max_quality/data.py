"""The best read of each sample, when of high quality: `reads`, rows in groups of about 5 (`grp`),
a row number `seq` and the columns the fold reads. Besides the copies and the quality the best is
chosen by, a read carries the columns some variants' late filters read, with NULLs: its quality
line's id (`quality_id`, one in five 99) and own score (`read_quality`), and its barcode's id
(`barcode_id`), code (`barcode`, both one in five 200), quality line id (`barcode_quality_id`,
small) and score (`barcode_quality`, mostly low).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.folds.tables import grouped

EXTRA = ("quality_id", "read_quality", "barcode_id", "barcode", "barcode_quality_id", "barcode_quality")


def columns(rng: np.random.Generator, n: int) -> dict:
    return {
        "copies": rng.integers(0, 5, n),
        "quality": rng.permutation(n) % 100,
        "quality_id": np.where(rng.random(n) < 0.2, 99, rng.integers(0, 250, n)),
        "read_quality": rng.integers(0, 100, n),
        "barcode_id": np.where(rng.random(n) < 0.2, 200, rng.integers(0, 250, n)),
        "barcode": np.where(rng.random(n) < 0.2, 200, rng.integers(0, 250, n)),
        "barcode_quality_id": rng.integers(0, 25, n),
        "barcode_quality": np.minimum(rng.zipf(1.5, n), 100) - 1,
    }


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    return {"reads": grouped(rows, seed, 5, columns, nulls=EXTRA)}
