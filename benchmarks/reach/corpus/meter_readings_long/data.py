"""A utility's daily interval meter file (DailyMeterData.dat, read with the notebook's
schema): one row per meter, channel, data type and day; record type, meter, customer
account and serial numbers as text, port, channel, conversion factor, data type (nine
kinds, four of them energy), start date and time, then QC#1..QC#24 and
Interval#1..Interval#24.

A customer has one to three meters, a meter reports several data types a day; quality
codes are mostly 3 (good) with some 0 and missing (NULL); values missing where the code
is; a few rows are sent twice (exact duplicates).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TYPES = ["KWH", "UNITS", "Signed Net in Watts", "Fwd Consumption in Watts", "Secure Consumption in Watts",
         "Variable Energy Value in Wh", "Net Energy in Wh", "Rev Consumption in Watts", "Reverse Energy in Wh"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    meters = ["11270743"] + [str(m) for m in rng.integers(10000000, 19999999, max(n // 40, 5))]
    meter = rng.choice(meters, n)
    account = {m: str(1693000000 + int(rng.integers(0, 5000))) for m in meters}
    frame = pd.DataFrame({
        "DT": "IRD", "Meter Number": meter, "Customer Account Number": [account[m] for m in meter],
        "Serial Number": [f"S{m}" for m in meter], "Port": rng.integers(1, 3, n).astype("int32"),
        "Channel": rng.integers(1, 5, n).astype("int32"), "Conversion Factor": rng.choice([1.0, 0.001], n),
        "Data Type": rng.choice(TYPES, n, p=[0.3, 0.1, 0.1, 0.1, 0.08, 0.08, 0.08, 0.08, 0.08]),
        "Start Date": (pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 60, n), "D")).date,
        "Start Time": np.zeros(n, dtype="int32"),
    })
    for i in range(1, 25):
        qc = rng.choice([3.0, 0.0, np.nan], n, p=[0.9, 0.06, 0.04])
        frame[f"QC#{i}"] = qc
    for i in range(1, 25):
        value = np.round(rng.gamma(2, 0.4, n), 3)
        frame[f"Interval#{i}"] = np.where(np.isnan(frame[f"QC#{i}"]), np.nan, value)
    again = frame.iloc[rng.choice(n, max(n // 100, 1), replace=False)]
    return {"daily_meter_data": pd.concat([frame, again], ignore_index=True)}
