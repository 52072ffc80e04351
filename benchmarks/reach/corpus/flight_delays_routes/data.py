"""US domestic flights in the Kaggle "airline delay and cancellation data 2009-2018" CSV
layout, read as text (every column a string, as `spark.read.csv(header=True)` gives it).

Times are hhmm numbers written as text ("517" for 05:17, actual times with a decimal part,
"1512.0"); delays in minutes with a decimal part; cancelled flights (about 2%) have no
actual times and no delays (empty); a few flights depart after midnight (day wrap); the
cause-of-delay columns are filled only for delayed arrivals. A few hubs (ORD, ATL, DFW,
DEN) carry many of the departures; a trailing empty column "Unnamed: 27" is in the file.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

AIRPORTS = ["ORD", "ATL", "DFW", "DEN", "LAX", "SFO", "SEA", "JFK", "EWR", "BOS", "MSP", "DTW", "PHX", "IAH", "CLT",
            "MCO", "LAS", "SLC", "BWI", "SAN", "AVP", "BZN", "GTF", "MCN", "OAK"]
CARRIERS = ["AA", "UA", "DL", "WN", "OO", "EV", "B6", "AS", "F9", "NK"]


def _hhmm(minutes: np.ndarray) -> np.ndarray:
    minutes = minutes % 1440
    return (minutes // 60) * 100 + minutes % 60


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    weights = np.r_[[8, 7, 6, 5], np.ones(len(AIRPORTS) - 4)]
    origin = rng.choice(AIRPORTS, n, p=weights / weights.sum())
    dest = rng.choice(AIRPORTS, n)
    dest = np.where(dest == origin, "ORD", dest)
    dest = np.where(dest == origin, "ATL", dest)
    date = pd.Timestamp("2018-01-01") + pd.to_timedelta(rng.integers(0, 365, n), "D")
    crs_dep = rng.integers(300, 1380, n)  # minutes after midnight
    elapsed = rng.integers(50, 330, n)
    dep_delay = np.round(rng.gamma(0.8, 18, n) - 6)
    very_late = rng.random(n) < 0.05
    dep_delay[very_late] += rng.integers(60, 300, very_late.sum())
    taxi_out = rng.integers(5, 40, n)
    taxi_in = rng.integers(2, 25, n)
    air_time = elapsed - 20 + rng.integers(-15, 15, n)
    arr_delay = dep_delay + taxi_out + air_time + taxi_in - elapsed
    cancelled = rng.random(n) < 0.02
    dep_time = crs_dep + dep_delay
    wheels_off = dep_time + taxi_out
    wheels_on = wheels_off + air_time
    arr_time = wheels_on + taxi_in

    def actual(values: np.ndarray) -> list:
        return [None if c else f"{v}.0" for c, v in zip(cancelled, _hhmm(values.astype(int)))]

    def minutes(values: np.ndarray) -> list:
        return [None if c else f"{v:.1f}" for c, v in zip(cancelled, values.astype(float))]

    late = (~cancelled) & (arr_delay >= 15)
    cause = [f"{v:.1f}" if lt else None for lt, v in zip(late, np.maximum(arr_delay, 0))]
    frame = pd.DataFrame({
        "FL_DATE": date.strftime("%Y-%m-%d"),
        "OP_CARRIER": rng.choice(CARRIERS, n),
        "OP_CARRIER_FL_NUM": rng.integers(1, 7000, n).astype(str),
        "ORIGIN": origin, "DEST": dest,
        "CRS_DEP_TIME": _hhmm(crs_dep).astype(str),
        "DEP_TIME": actual(dep_time), "DEP_DELAY": minutes(dep_delay), "TAXI_OUT": minutes(taxi_out),
        "WHEELS_OFF": actual(wheels_off), "WHEELS_ON": actual(wheels_on), "TAXI_IN": minutes(taxi_in),
        "CRS_ARR_TIME": _hhmm(crs_dep + elapsed).astype(str),
        "ARR_TIME": actual(arr_time), "ARR_DELAY": minutes(arr_delay),
        "CANCELLED": np.where(cancelled, "1.0", "0.0"),
        "CANCELLATION_CODE": [rng.choice(["A", "B", "C"]) if c else None for c in cancelled],
        "DIVERTED": "0.0",
        "CRS_ELAPSED_TIME": [f"{v:.1f}" for v in elapsed.astype(float)],
        "ACTUAL_ELAPSED_TIME": minutes(air_time + taxi_out + taxi_in),
        "AIR_TIME": minutes(air_time),
        "DISTANCE": [f"{v:.1f}" for v in np.round(elapsed * 7.5)],
        "CARRIER_DELAY": cause, "WEATHER_DELAY": [("0.0" if c else None) for c in cause],
        "NAS_DELAY": [("0.0" if c else None) for c in cause], "SECURITY_DELAY": [("0.0" if c else None) for c in cause],
        "LATE_AIRCRAFT_DELAY": [("0.0" if c else None) for c in cause],
        "Unnamed: 27": None,
    })
    frame["Unnamed: 27"] = pd.Series([None] * n, dtype="string")  # an empty text column, not a typeless one
    return {"flight_delays": frame}
