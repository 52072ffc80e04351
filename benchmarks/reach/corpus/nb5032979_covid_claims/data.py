"""The COVID Tracking Project's daily state counts merged with the weekly initial
unemployment claims, the state's emergency declaration and stay-at-home order dates, and
its 2019 population estimate (the notebook's combined.csv).

One row per state and day from January to May 2020, territories included; counts are
missing (NULL) before a state reported; the weekly claims sit on one day of the week (NULL
on the others); a few states never ordered their residents to stay home (NULL date); death
rates rise over time, crossing 1% on different days in different states.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STATES = ["NY", "NJ", "CA", "WA", "LA", "MI", "IL", "MA", "FL", "TX", "GA", "PA", "AR", "IA", "ND", "SD", "NE",
          "UT", "WY", "OK"]
TERRITORIES = ["GU", "PR", "AS", "MP", "VI"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    states = STATES + TERRITORIES
    days = max(rows // len(states), 10)
    dates = pd.date_range("2020-01-22", periods=days, freq="D").strftime("%Y-%m-%d")
    emergency = {s: dates[int(rng.integers(0, days // 2))] for s in states}
    stay_home = {s: (None if s in ("AR", "IA", "ND", "SD", "NE", "UT", "WY", "OK")
                     else dates[int(rng.integers(days // 3, days))]) for s in states}
    population = {s: int(rng.lognormal(15, 1)) for s in states}
    records = []
    for s in states:
        start = int(rng.integers(0, days // 2))
        lethality = rng.uniform(0.002, 0.06)
        positive = 0.0
        for i, d in enumerate(dates):
            if i < start:
                records.append((s, d, None, None, None, None))
                continue
            positive += rng.integers(1, 400)
            death = np.floor(positive * lethality * min(1.0, (i - start + 1) / 15) * rng.uniform(0.5, 1.5))
            negative = positive * rng.uniform(3, 10)
            records.append((s, d, positive, death if rng.random() > 0.05 else None, negative, positive + negative))
    frame = pd.DataFrame(records, columns=["state", "date", "positive", "death", "negative", "total"])
    weekday = pd.to_datetime(frame["date"]).dt.dayofweek == 3
    frame["number_of_iclaims"] = np.where(weekday, np.round(rng.lognormal(9, 1.5, len(frame))), np.nan)
    frame["Emergency Declaration Date"] = frame["state"].map(emergency)
    frame["Stay At Home Order Date"] = frame["state"].map(stay_home)
    frame["POPESTIMATE2019"] = frame["state"].map(population).astype("int64")
    return {"combined": frame}
