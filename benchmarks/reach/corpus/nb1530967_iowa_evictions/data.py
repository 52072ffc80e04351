"""Eviction Lab's city-level data for Iowa (cities.csv: one row per city and year,
2000-2016) and a table of Iowa city basics (name as "City, IA", coordinates).

Rates are percentages; small cities have missing values in some years (NULL, removed by
the dropna), the multiracial and other shares are missing in the early years; most cities
are not among the study's; a few basics names have no comma (the Python function gives
them an empty name); some cities of the study are missing from the basics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STUDY = ["Batavia", "Farmington", "Denison", "Atkins", "Elgin", "Williamsburg", "Le_Claire", "Radcliffe", "Hopkinton",
         "Webster_City", "Altoona", "University_Park", "Battle_Creek", "Ainsworth", "Villisca", "Colo", "Bayard",
         "Donnellson", "Sheffield", "Albert_City", "Hartford", "Mount_Ayr", "Epworth", "Humboldt", "Le_Mars", "Albion"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    years = np.arange(2000, 2017)
    k = max(rows // len(years), 30)
    names = STUDY + [f"Town_{i}" for i in range(k - len(STUDY))]
    city = np.repeat(np.arange(k), len(years))
    year = np.tile(years, k)
    m = len(city)
    eviction = np.round(rng.gamma(1.5, 1.0, k)[city] * rng.uniform(0.3, 1.7, m), 2)
    frame = pd.DataFrame({
        "GEOID": (1900000 + city).astype("int64"), "year": year.astype("int64"),
        "name": [names[c] for c in city], "parent-location": "Iowa",
        "population": rng.integers(300, 30000, k)[city].astype(float),
        "poverty-rate": np.round(rng.uniform(3, 25, m), 2),
        "pct-renter-occupied": np.round(rng.uniform(10, 45, m), 2),
        "median-gross-rent": np.round(rng.uniform(350, 900, m)),
        "median-household-income": np.round(rng.uniform(25000, 80000, m)),
        "median-property-value": np.round(rng.uniform(50000, 250000, m)),
        "rent-burden": np.round(rng.uniform(15, 40, m), 1),
        "pct-white": np.round(rng.uniform(70, 99, m), 2), "pct-af-am": np.round(rng.uniform(0, 8, m), 2),
        "pct-hispanic": np.round(rng.uniform(0, 20, m), 2), "pct-am-ind": np.round(rng.uniform(0, 2, m), 2),
        "pct-asian": np.round(rng.uniform(0, 4, m), 2), "pct-nh-pi": np.round(rng.uniform(0, 0.5, m), 2),
        "pct-multiple": np.where(year < 2010, np.nan, np.round(rng.uniform(0, 3, m), 2)),
        "pct-other": np.where(year < 2005, np.nan, np.round(rng.uniform(0, 2, m), 2)),
        "renter-occupied-households": rng.integers(30, 4000, m).astype(float),
        "eviction-filings": rng.integers(0, 80, m).astype(float), "evictions": rng.integers(0, 50, m).astype(float),
        "eviction-rate": eviction, "eviction-filing-rate": np.round(eviction * rng.uniform(1, 2, m), 2),
        "imputed": 0.0, "subbed": 0.0,
    })
    for column in ["poverty-rate", "median-gross-rent", "rent-burden", "eviction-rate"]:
        frame.loc[rng.random(m) < 0.04, column] = np.nan
    basics_names = [n for n in names if rng.random() > 0.1]
    city_labels = [f"{n}, IA" if rng.random() > 0.05 else n for n in basics_names]
    basics = pd.DataFrame({"City": city_labels, "Lat": np.round(rng.uniform(40.4, 43.5, len(city_labels)), 4),
                           "Lon": np.round(rng.uniform(-96.6, -90.1, len(city_labels)), 4),
                           "County": rng.choice(["Polk", "Linn", "Scott", "Story"], len(city_labels))})
    return {"cities": frame, "city_basics_iowa": basics}
