"""The World Bank's life expectancy indicator: one row per country or aggregate, one column
per year from 1960 to 2016.

Values rise over the decades with a country's own pace (some gain thirty years, a few hardly
any); many countries have no figure for the early years (countries that did not exist yet,
no census), a few none for 2016 (not reported yet); a handful of rows are exported twice
(the same country twice, as when two downloads are stacked).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

YEARS = [str(y) for y in range(1960, 2017)]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    start = np.clip(rng.normal(54, 11, n), 28, 74)
    gain = np.clip(rng.normal(15, 8, n), -5, 40)  # years gained from 1960 to 2016
    wobble = rng.normal(0, 0.4, (n, len(YEARS)))
    share = np.linspace(0, 1, len(YEARS))
    values = start[:, None] + gain[:, None] * share[None, :] + wobble
    first_year = np.where(rng.random(n) < 0.12, rng.integers(1, 35, n), 0)  # no figures before this column
    values[np.arange(len(YEARS))[None, :] < first_year[:, None]] = np.nan
    values[rng.random(n) < 0.03, -1] = np.nan  # 2016 not reported yet
    frame = pd.DataFrame(values.round(6), columns=YEARS)
    frame.insert(0, "Country Name", [f"Country {i}" for i in range(n)])
    frame.insert(1, "Country Code", [f"C{i:04d}" for i in range(n)])
    frame.insert(2, "Indicator Name", "Life expectancy at birth, total (years)")
    frame.insert(3, "Indicator Code", "SP.DYN.LE00.IN")
    twice = frame.sample(max(n // 100, 1), random_state=seed)
    return {"life_expectancy": pd.concat([frame, twice], ignore_index=True)}
