"""AIS transit segments and vessel information (the vessel-traffic data of a Python data
analysis course).

vessel_information: one row per vessel (mmsi), its names (several joined by '/'), flag and
type. transit_segments: one row per segment of a transit, skewed by vessel (ferries and tugs
have hundreds, most ships a few), segment lengths log-normal (nautical miles, most under 20,
some long passages), many equal lengths (rounded to 0.1 nm); some segments are of vessels
not in the vessel table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    k = max(n // 8, 10)
    mmsi = np.sort(rng.choice(999_999_998, k, replace=False) + 1)
    vessels = pd.DataFrame({
        "mmsi": mmsi.astype("int64"),
        "names": [f"Vessel {i}" + (f"/Old Name {i}" if rng.random() < 0.2 else "") for i in range(k)],
        "sov": rng.choice(["Y", "N"], k, p=[0.05, 0.95]),
        "flag": rng.choice(["United States (USA)", "Panama", "Liberia", "Marshall Islands"], k),
        "type": rng.choice(["Cargo", "Tanker", "Tug", "Passenger", "Fishing"], k),
    })
    activity = rng.pareto(1.0, k + 5) + 0.2
    owners = np.concatenate([mmsi, rng.integers(1, 999999999, 5)])  # five vessels without information
    vessel = rng.choice(owners, n, p=activity / activity.sum())
    start = pd.Timestamp("2009-01-01") + pd.to_timedelta(rng.integers(0, 3 * 365 * 24 * 60, n), "min")
    length = np.round(rng.lognormal(2.3, 1.1, n), 1)
    segments = pd.DataFrame({
        "mmsi": vessel.astype("int64"), "name": [f"Vessel {v % 1000}" for v in vessel],
        "transit": rng.integers(1, 40, n).astype("int64"), "segment": rng.integers(1, 4, n).astype("int64"),
        "seg_length": length, "avg_sog": np.round(rng.uniform(2, 18, n), 1),
        "min_sog": np.round(rng.uniform(0, 2, n), 1), "max_sog": np.round(rng.uniform(10, 25, n), 1),
        "pdgt10": np.round(rng.uniform(0, 100, n), 1),
        "st_time": start, "end_time": start + pd.to_timedelta(length / 10, "h"),
    })
    return {"transit_segments": segments, "vessel_information": vessels}
