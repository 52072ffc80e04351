"""Johns Hopkins CSSE's global COVID-19 time series: three wide CSV files (confirmed, deaths,
recovered), one row per location (province or state, country or region, latitude,
longitude) and one column per day ("1/22/20", ...), every cell text as a CSV reader without
schema gives it.

Cumulative counts that grow over the days (fast in the first countries hit); most countries have one row with no province,
some (China, Canada, Australia) one row per province; the recovered file has Canada as one
row instead of its provinces (so the provinces get no recovered figures); a few cells of
the recovered file are -1 (a correction); cruise ships and repatriated travellers appear as
locations, some of them without coordinates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

COUNTRIES = ["Italy", "Germany", "France", "Spain", "Iran", "Korea, South", "Japan", "Brazil", "India", "US",
             "United Kingdom", "Switzerland", "Austria", "Belgium", "Netherlands", "Norway", "Sweden", "Portugal",
             "Israel", "Turkey"]
PROVINCES = {"China": ["Hubei", "Guangdong", "Henan", "Zhejiang", "Hunan", "Anhui", "Beijing", "Shanghai"],
             "Canada": ["Ontario", "Quebec", "British Columbia", "Alberta", "Grand Princess"],
             "Australia": ["New South Wales", "Victoria", "Queensland"]}


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    dates = [f"{d.month}/{d.day}/{d.year % 100}" for d in pd.date_range("2020-01-22", periods=25)]
    n_locations = max(rows // len(dates), 30)
    locations = [(None, c) for c in COUNTRIES] + [(p, c) for c, ps in PROVINCES.items() for p in ps]
    locations += [(None, "Diamond Princess"), (None, "MS Zaandam"), ("Repatriated Travellers", "Canada")]
    locations += [(None, f"Country {i}") for i in range(max(n_locations - len(locations), 0))]
    records = {"confirmed": [], "deaths": [], "recovered": []}
    for province, country in locations:
        no_coordinates = province == "Repatriated Travellers" or country == "MS Zaandam"
        lat = None if no_coordinates else f"{rng.uniform(-40, 60):.4f}"
        lon = None if no_coordinates else f"{rng.uniform(-120, 140):.4f}"
        early = country in COUNTRIES[:6] and province is None  # the first large outbreaks
        start = int(rng.integers(0, 5)) if early else int(rng.integers(0, 20))
        growth = rng.uniform(0.3, 0.4) if early else rng.uniform(0.05, 0.35)
        confirmed = np.array([0 if day < start else int(np.exp(growth * (day - start)) * rng.uniform(1, 5))
                              for day in range(len(dates))])
        confirmed = np.maximum.accumulate(confirmed)
        deaths = np.maximum.accumulate((confirmed * rng.uniform(0.0, 0.06)).astype(int))
        recovered = np.maximum.accumulate((confirmed * rng.uniform(0.0, 0.5)).astype(int))
        key = {"Province/State": province, "Country/Region": country, "Lat": lat, "Long": lon}
        records["confirmed"].append({**key, **{d: str(v) for d, v in zip(dates, confirmed)}})
        records["deaths"].append({**key, **{d: str(v) for d, v in zip(dates, deaths)}})
        if country == "Canada" and province is not None:
            continue  # the recovered file has Canada as a whole
        cells = [str(v) if rng.random() > 0.01 else "-1" for v in recovered]
        records["recovered"].append({**key, **dict(zip(dates, cells))})
    canada = {"Province/State": None, "Country/Region": "Canada", "Lat": "56.1304", "Long": "-106.3468"}
    records["recovered"].append({**canada, **{d: str(i * 3) for i, d in enumerate(dates)}})
    return {f"time_series_covid19_{kind}_global": pd.DataFrame(found) for kind, found in records.items()}
