"""Subway turnstile counts turned into advertising impressions: one row per station and day
of the month, with the entries and exits counted and the impressions estimated from them.

A few stations carry most of the traffic (skew), weekends are quieter; impressions are
distinct within a day (they are estimates with decimals dropped, large numbers).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    days = 31
    stations = max(rows // days, 60)
    size = rng.pareto(1.1, stations) + 0.2
    records = []
    for day in range(1, days + 1):
        weekend = day % 7 in (0, 6)
        traffic = size * (0.6 if weekend else 1.0) * rng.lognormal(0, 0.15, stations) * 30000
        impressions = np.round(traffic).astype("int64") + rng.permutation(stations)  # distinct within the day
        for s in range(stations):
            entered = int(traffic[s] * rng.uniform(0.45, 0.55))
            records.append((day, f"STATION {s:03d}", entered, int(traffic[s]) - entered, int(impressions[s])))
    frame = pd.DataFrame(records, columns=["DAY", "STATION", "Entered", "Exited", "IMPRESSIONS"])
    return {"station_impressions": frame.astype({"DAY": "int64", "Entered": "int64", "Exited": "int64"})}
