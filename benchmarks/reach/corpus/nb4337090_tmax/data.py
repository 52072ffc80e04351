"""NOAA GHCN-Daily observations from the stations around one city (ID, Date, Element,
Data_Value in tenths of a degree Celsius).

Every station reports TMAX and TMIN on most days, some a precipitation (PRCP) too; a station
misses days; some values are missing (NULL); temperatures follow the season, so hot days
cluster in summer and on most days no station reaches 35 degrees.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    stations = [f"USC00{rng.integers(100000, 999999)}" for _ in range(8)]
    per_day = len(stations) * 2.3
    every_day = pd.date_range("2005-01-01", "2014-12-31", freq="D")
    days = sorted(rng.choice(every_day, min(max(int(n / per_day), 5), len(every_day)), replace=False))
    records = []
    for day in days:
        season = np.cos((pd.Timestamp(day).dayofyear - 200) / 365 * 2 * np.pi)
        for station in stations:
            if rng.random() < 0.12:
                continue  # no report that day
            high = int(round(rng.normal(240 + 100 * season, 45)))
            records.append((station, pd.Timestamp(day).strftime("%Y-%m-%d"), "TMAX", high))
            records.append((station, pd.Timestamp(day).strftime("%Y-%m-%d"), "TMIN", high - int(rng.integers(50, 150))))
            if rng.random() < 0.4:
                records.append((station, pd.Timestamp(day).strftime("%Y-%m-%d"), "PRCP", int(rng.gamma(1.0, 60))))
    frame = pd.DataFrame(records, columns=["ID", "Date", "Element", "Data_Value"])
    frame["Data_Value"] = frame["Data_Value"].astype("Int64")
    frame.loc[rng.random(len(frame)) < 0.02, "Data_Value"] = pd.NA
    return {"ghcn_daily": frame}
