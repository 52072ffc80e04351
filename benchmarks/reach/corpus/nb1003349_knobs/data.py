"""Two sweeps of an FPGA kernel's design space (the knob columns of a high-level synthesis
benchmark), each row one compiled configuration.

Knobs are small powers of two drawn from the same grid in both sweeps, so one configuration
is met several times in a sweep (repeated builds) and joins many rows of the other; the
block size is skewed to the small sizes. The measured time is missing (NaN) for a build
that failed; knob_I_B and knob_MAT_SIZE differ between the sweeps (dropped before the match).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _sweep(rng: np.random.Generator, n: int, mat_size: int) -> pd.DataFrame:
    unroll = [rng.choice([1, 2, 4], n, p=[0.5, 0.3, 0.2]) for _ in range(3)]
    block = rng.choice([256, 512, 1024, 2048], n, p=[0.4, 0.3, 0.2, 0.1])
    sub_x = rng.choice([1, 2, 4], n)
    sub_y = rng.choice([1, 2, 4], n)
    work = mat_size ** 3 / (unroll[0] * unroll[1] * unroll[2] * sub_x * sub_y)
    time = np.round(work / block * rng.lognormal(0, 0.3, n) / 1e3, 3)
    time[rng.random(n) < 0.04] = np.nan  # failed build
    return pd.DataFrame({
        "knob_I_B": rng.choice([0, 1], n).astype("int64"),
        "knob_MAT_SIZE": np.full(n, mat_size, dtype="int64"),
        "knob_DATA_BLOCK": block.astype("int64"),
        "knob_UNROLL_FACTOR1": unroll[0].astype("int64"),
        "knob_UNROLL_FACTOR2": unroll[1].astype("int64"),
        "knob_UNROLL_FACTOR3": unroll[2].astype("int64"),
        "knob_SUBDIM_X": sub_x.astype("int64"),
        "knob_SUBDIM_Y": sub_y.astype("int64"),
        "time": time,
        "area": np.round(unroll[0] * unroll[1] * unroll[2] * block / 64 * rng.uniform(0.8, 1.2, n), 1),
    })


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    return {"knobs_0": _sweep(rng, n, 256), "knobs_1": _sweep(rng, n * 3 // 4, 128)}
