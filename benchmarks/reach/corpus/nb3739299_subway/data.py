"""NYC MTA turnstile readings (the course data set's columns: UNIT, DATEn, TIMEn, ENTRIESn,
EXITSn).

Each unit reports cumulative counters every four hours over some days; busy units (skew)
count thousands per interval, quiet ones a handful; a counter is sometimes reset (a large
negative difference); an audit re-sends a reading (an exact duplicate row); a few readings
have no exit count (NULL).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    days = 7
    per_unit = days * 6
    units = max(n // per_unit, 2)
    frames = []
    for u in range(units):
        scale = rng.choice([20, 150, 600], p=[0.4, 0.4, 0.2])
        times = [f"{h:02d}:00:00" for h in range(0, 24, 4)]
        date = np.repeat([f"05-{d:02d}-11" for d in range(1, days + 1)], 6)
        time = np.tile(times, days)
        hour = np.tile(np.arange(0, 24, 4), days)
        busy = np.where((hour >= 8) & (hour <= 20), 3.0, 0.5)
        entries = np.cumsum(rng.poisson(scale * busy)) + int(rng.integers(1_000_000, 9_000_000))
        exits = np.cumsum(rng.poisson(scale * busy * 0.8)) + int(rng.integers(1_000_000, 9_000_000))
        if rng.random() < 0.1:  # counter reset
            at = int(rng.integers(1, per_unit))
            entries[at:] -= entries[at] - int(rng.integers(0, 100))
        frames.append(pd.DataFrame({"UNIT": f"R{u + 1:03d}", "DATEn": date, "TIMEn": time,
                                    "ENTRIESn": entries.astype("int64"), "EXITSn": exits.astype("float64")}))
    frame = pd.concat(frames, ignore_index=True)
    frame.loc[rng.random(len(frame)) < 0.01, "EXITSn"] = np.nan
    resent = frame.iloc[rng.choice(len(frame), max(len(frame) // 100, 1), replace=False)]
    frame = pd.concat([frame, resent], ignore_index=True)
    frame["EXITSn"] = frame["EXITSn"].astype("Int64")
    return {"turnstile": frame}
