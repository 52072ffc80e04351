"""Indoor air measurements of a monitored dwelling: one row per 10-minute reading, with the
monitoring period and the season it belongs to, temperature, relative humidity, CO2 and
VOC (ppb).

VOC is skewed (mostly low, peaks when cooking or cleaning, more in the heating season when
windows stay shut); the sensor drops out now and then (missing values), and reads 0 for a
few minutes after a restart; periods are of different lengths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PERIODS = [("MP1", "Heating", 0.35), ("MP2", "Non-heating", 0.25), ("MP3", "Heating", 0.25), ("MP4", "Non-heating", 0.15)]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    which = rng.choice(len(PERIODS), n, p=[p[2] for p in PERIODS])
    heating = np.array([PERIODS[w][1] == "Heating" for w in which])
    voc = np.round(rng.lognormal(np.where(heating, 5.9, 5.0), 0.7, n), 0)
    voc[rng.random(n) < 0.01] = 0.0  # right after a restart
    voc[rng.random(n) < 0.04] = np.nan  # sensor offline
    temp = np.round(rng.normal(np.where(heating, 21.5, 24.0), 1.5, n), 1)
    rh = np.round(rng.normal(np.where(heating, 35, 50), 8, n).clip(10, 90), 1)
    co2 = np.round(rng.lognormal(np.where(heating, 6.7, 6.3), 0.35, n), 0)
    stamp = pd.Timestamp("2019-01-07") + pd.to_timedelta(np.sort(rng.integers(0, 365 * 24 * 6, n)) * 10, "min")
    frame = pd.DataFrame({
        "Timestamp": stamp,
        "Monitoring_Period": [PERIODS[w][0] for w in which],
        "Season": [PERIODS[w][1] for w in which],
        "TEMP": temp, "RH": rh, "CO2": co2, "VOC": voc,
    })
    return {"indoor_air": frame}
