"""NOAA Global Surface Summary of the Day for California stations, 1981-2015: station
number, date, mean temperature, dew point, visibility, mean and maximum sustained wind,
gust, max and min temperature, precipitation.

Stations report on most days; some stations opened late or closed early (no Novembers in
some years, so their columns are dropped), some measures are missing for days (NULL) and a
few stations never report gusts or maximum wind for a whole November; precipitation is
zero on most days.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 100)
    stations = ["690150", "722950", "723840", "724800", "725845", "745090", "747020", "724927"]
    opened = {s: int(y) for s, y in zip(stations, rng.choice([1981, 1981, 1981, 1995, 2003], len(stations)))}
    station = rng.choice(stations, n)
    year = np.array([rng.integers(opened[s], 2016) for s in station])
    month = np.where(rng.random(n) < 0.5, 11, rng.integers(1, 13, n))
    day = rng.integers(1, 29, n)
    date = pd.to_datetime(pd.DataFrame({"year": year, "month": month, "day": day}))
    prcp = np.where(rng.random(n) < 0.7, 0.0, np.round(rng.exponential(0.3, n), 2))
    frame = pd.DataFrame({
        "STN": station, "YEARMODA": date,
        "TEMP": np.round(rng.normal(58, 10, n), 1), "DEWP": np.round(rng.normal(45, 8, n), 1),
        "VISIB": np.round(rng.uniform(2, 10, n), 1), "WDSP": np.round(rng.gamma(2, 3, n), 1),
        "MXSPD": np.round(rng.gamma(3, 4, n), 1), "GUST": np.round(rng.gamma(4, 5, n), 1),
        "MAX": np.round(rng.normal(70, 10, n), 1), "MIN": np.round(rng.normal(45, 8, n), 1), "PRCP": prcp,
    })
    frame.loc[rng.random(n) < 0.05, "WDSP"] = np.nan
    frame.loc[(frame["STN"] == "724927") & (frame["YEARMODA"].dt.year < 2001), "MXSPD"] = np.nan
    return {"ca_1981_2015_subsetted": frame}
