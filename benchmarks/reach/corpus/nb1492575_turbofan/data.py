"""NASA C-MAPSS FD001 training data as read from its space-separated text file.

Columns "0" to "27": engine id, cycle, three operational settings, 21 sensors, and two empty
columns (NaN) from the trailing spaces. Engines run for different numbers of cycles (skewed
lifetimes); sensor s11 (column "15") drifts upwards as an engine degrades, with noise, so the
last cycle of an engine can read lower than the cycles just before it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    lifetimes: list[int] = []
    while sum(lifetimes) < n:
        lifetimes.append(int(rng.integers(15, 90)))
    engine = np.repeat(np.arange(1, len(lifetimes) + 1), lifetimes)
    cycle = np.concatenate([np.arange(1, life + 1) for life in lifetimes])
    wear = np.concatenate([(np.arange(1, life + 1) / life) ** 2 for life in lifetimes])
    m = len(engine)
    frame = pd.DataFrame({"0": engine.astype("int64"), "1": cycle.astype("int64"),
                          "2": np.round(rng.normal(0, 0.002, m), 4), "3": np.round(rng.normal(0, 0.0003, m), 4),
                          "4": np.full(m, 100.0)})
    base = [518.67, 641.8, 1589.7, 1400.6, 14.62, 21.61, 554.4, 2388.1, 9046.2, 1.3, 47.2, 521.7, 2388.1,
            8138.6, 8.42, 0.03, 392.0, 2388.0, 100.0, 38.8, 23.3]
    drift = [0, 0.5, 6, 9, 0, 0, -0.8, 0.05, 5, 0, 0.6, -0.7, 0.05, 4, 0.04, 0, 1.5, 0, 0, -0.3, -0.2]
    for i, (b, d) in enumerate(zip(base, drift)):
        noise = abs(b) * 0.0005 + abs(d) * 0.15
        frame[str(i + 5)] = np.round(b + d * wear + rng.normal(0, noise, m), 4)
    frame["26"] = np.nan
    frame["27"] = np.nan
    return {"train_fd001": frame}
