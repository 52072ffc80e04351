"""US domestic flights as the lab's parser writes them: flight date, carrier, origin and
destination airport ids, departure and arrival delays in minutes.

Six carriers, two of which fly most of the flights (skew); delays mostly small, often
negative (early), with a long tail; cancelled flights have no delays (NULL); a small carrier
flies only some days, so its ten-day windows are sparse and its totals swing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    carriers = np.array(["WN", "AA", "DL", "UA", "B6", "HA"])
    carrier = rng.choice(carriers, n, p=[0.3, 0.25, 0.2, 0.12, 0.1, 0.03])
    day = rng.integers(0, 45, n)
    storm = np.isin(day, [8, 9, 23, 24, 25])  # bad-weather days
    dep = np.round(rng.gamma(1.2, 12, n) - 8 + storm * rng.gamma(2.0, 30, n))
    arr = np.round(dep + rng.normal(-4, 9, n))
    cancelled = rng.random(n) < 0.02
    frame = pd.DataFrame({
        "flight_date": pd.Timestamp("2019-01-01") + pd.to_timedelta(day, "D"),
        "day_of_week": ((day + 1) % 7 + 1).astype("int64"),
        "carrier": carrier,
        "origin_airport_id": rng.choice([10397, 13930, 12892, 11298, 14107, 12478], n).astype("int64"),
        "dest_airport_id": rng.choice([10397, 13930, 12892, 11298, 14107, 12478], n).astype("int64"),
        "dep_delay": pd.array(np.where(cancelled, np.nan, dep), dtype="Int64"),
        "arr_delay": pd.array(np.where(cancelled, np.nan, arr), dtype="Int64"),
    })
    return {"flights": frame}
