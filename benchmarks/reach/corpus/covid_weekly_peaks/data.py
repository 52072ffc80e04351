"""Our World in Data's COVID-19 table (the columns the notebook touches, and a few more):
iso_code, continent, location, date (text, ISO), total_cases, new_cases, population.

About ninety countries and the OWID aggregates (World, continents, income groups: iso codes
starting with "OWID_", far larger counts) over three weeks around the end of March 2021;
daily new cases skewed (a handful of countries report tens of thousands, most hundreds);
some days unreported (NULL) and a few corrections below zero.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    days = pd.date_range("2021-03-15", "2021-04-05", freq="D")
    n_countries = max(rows // len(days) - 6, 12)
    level = rng.lognormal(6.0, 1.6, n_countries)
    level[:5] = [75000, 62000, 48000, 38000, 30000]  # the largest outbreaks of the time
    names = ["Brazil", "India", "United States", "France", "Turkey"] + [f"Country {i}" for i in range(5, n_countries)]
    codes = ["BRA", "IND", "USA", "FRA", "TUR"] + [f"C{i:02d}" for i in range(5, n_countries)]
    aggregates = [("OWID_WRL", "World", 500000.0), ("OWID_EUR", "Europe", 200000.0),
                  ("OWID_ASI", "Asia", 150000.0), ("OWID_SAM", "South America", 90000.0),
                  ("OWID_HIC", "High income", 250000.0), ("OWID_EUN", "European Union", 120000.0)]
    records = []
    for code, name, base in list(zip(codes, names, level)) + aggregates:
        total = float(rng.integers(10_000, 5_000_000))
        for day in days:
            cases = float(np.round(base * rng.lognormal(0, 0.25)))
            if rng.random() < 0.05:
                cases = np.nan
            elif rng.random() < 0.01:
                cases = -float(rng.integers(1, 500))
            total += 0 if np.isnan(cases) else cases
            records.append((code, "Asia" if code.startswith("OWID") else "Europe", name, day.strftime("%Y-%m-%d"),
                            total, cases, float(rng.integers(1_000_000, 300_000_000))))
    frame = pd.DataFrame(records, columns=["iso_code", "continent", "location", "date", "total_cases", "new_cases",
                                           "population"])
    frame.loc[frame["iso_code"].str.startswith("OWID"), "continent"] = None
    return {"owid_covid_data": frame}
