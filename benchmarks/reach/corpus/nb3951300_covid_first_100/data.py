"""Kaggle's novel corona virus 2019 data set (covid_19_data.csv): one row per report day
and province (or country without provinces), cumulative confirmed, deaths and recovered.

Dates written MM/DD/YYYY from 01/22/2020; some country names carry a leading space
(" Azerbaijan"); a few countries report by province (several rows per day to sum); cruise
ships and disputed regions appear and are excluded; countries cross 100 cases at very
different dates, some only in April or May, a few never.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    days = pd.date_range("2020-01-22", "2020-05-20", freq="D")
    per_day = max(rows // len(days), 6)
    countries = ([f"Country {i}" for i in range(per_day)] + ["Diamond Princess", "Kosovo", "Others"])[:per_day]
    countries[1 % per_day] = "Diamond Princess"
    provinces = {c: (["North", "South", "East"] if i % 5 == 2 else [None]) for i, c in enumerate(countries)}
    onset = {c: int(rng.integers(0, len(days))) for c in countries}
    growth = {c: float(rng.uniform(0.05, 0.3)) for c in countries}
    records = []
    for d_index, day in enumerate(days):
        for c in countries:
            if d_index < onset[c] and rng.random() < 0.8:
                continue
            for p in provinces[c]:
                cases = int(np.exp(max(d_index - onset[c], 0) * growth[c]) * rng.uniform(1, 3))
                name = (" " + c) if rng.random() < 0.05 else c
                records.append((day.strftime("%m/%d/%Y"), p, name, cases))
    frame = pd.DataFrame(records, columns=["ObservationDate", "Province/State", "Country/Region", "Confirmed"])
    frame.insert(0, "SNo", np.arange(1, len(frame) + 1, dtype="int64"))
    frame["Last Update"] = frame["ObservationDate"] + " 23:59"
    frame["Confirmed"] = frame["Confirmed"].clip(upper=10**6).astype(float)
    frame["Deaths"] = np.floor(frame["Confirmed"] * 0.03)
    frame["Recovered"] = np.floor(frame["Confirmed"] * 0.4)
    frame = frame[["SNo", "ObservationDate", "Province/State", "Country/Region", "Last Update", "Confirmed", "Deaths",
                   "Recovered"]]
    return {"covid_19_data": frame}
