"""Fast-food restaurants' prices and their zip code's demographics (Wooldridge's `discrim`
data: Burger King, KFC, Roy Rogers and Wendy's in New Jersey and Pennsylvania).

Prices of soda, fries and an entree, missing for a few restaurants; the starting wage and
staff counts missing for some (not reported), more often at some chains; the zip code's
share of black residents (`prpblck`) and of residents in poverty (`prppov`), missing for a
few zips; county density and crime rate, missing for a few rows. Several restaurants share a
county; counties are of very different sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _sometimes_missing(rng: np.random.Generator, values: np.ndarray, share) -> np.ndarray:
    values = values.astype(float)
    values[rng.random(len(values)) < share] = np.nan
    return values


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    chain = rng.choice([1, 2, 3, 4], n, p=[0.4, 0.2, 0.2, 0.2])
    state = rng.choice([1, 2], n, p=[0.55, 0.45])
    county_sizes = rng.pareto(1.0, 40) + 1
    county = rng.choice(40, n, p=county_sizes / county_sizes.sum()) + 1
    prpblck = np.clip(rng.beta(0.6, 3.0, n), 0, 1).round(4)
    base_wage = np.array([0, 4.25, 4.35, 4.5, 4.3])[chain]
    report_wage = np.array([0, 0.05, 0.12, 0.08, 0.04])[chain]
    county_density = rng.lognormal(7.5, 1.0, 41).round(0)
    county_crime = rng.gamma(3.0, 0.012, 41).round(4)
    frame = pd.DataFrame({
        "psoda": _sometimes_missing(rng, np.round(rng.normal(1.04, 0.09, n), 2), 0.02),
        "pfries": _sometimes_missing(rng, np.round(rng.normal(0.92, 0.11, n), 2), 0.02),
        "pentree": _sometimes_missing(rng, np.round(rng.normal(1.32, 0.64, n).clip(0.5), 2), 0.02),
        "wagest": _sometimes_missing(rng, np.round(base_wage + rng.normal(0, 0.2, n), 2), report_wage),
        "nmgrs": _sometimes_missing(rng, rng.integers(1, 6, n), 0.04),
        "nregs": _sometimes_missing(rng, rng.integers(1, 8, n), 0.04),
        "hrsopen": np.round(rng.normal(14.4, 2.8, n).clip(6, 24), 1),
        "emp": _sometimes_missing(rng, np.round(rng.normal(17.5, 9.0, n).clip(2), 1), 0.04),
        "compown": rng.choice([0, 1], n, p=[0.65, 0.35]).astype("int64"),
        "chain": chain.astype("int64"),
        "density": _sometimes_missing(rng, county_density[county], 0.03),
        "crmrte": _sometimes_missing(rng, county_crime[county], 0.03),
        "state": state.astype("int64"),
        "prpblck": _sometimes_missing(rng, prpblck, 0.01),
        "prppov": _sometimes_missing(rng, np.clip(rng.beta(1.2, 10, n) + prpblck * 0.2, 0, 1).round(4), 0.01),
        "prpncar": np.clip(rng.beta(1, 8, n) + prpblck * 0.3, 0, 1).round(4),
        "hseval": rng.lognormal(11.8, 0.4, n).round(0),
        "nstores": rng.integers(1, 8, n).astype("int64"),
        "income": rng.lognormal(10.6, 0.35, n).round(0),
        "county": county.astype("int64"),
    })
    return {"discrim": frame}
