"""Monthly IMF SDMX series (one export per country and indicator: "@TIME_PERIOD" as
"YYYY-MM-01", "@OBS_VALUE" as text) and a daily cryptocurrency market table (date, coin,
price, market capitalisation in USD).

The IMF series cover 2010-2018, some months missing in some series (so the inner joins
lose them); the market table covers 2013-2018 for a few hundred coins, market caps heavy
tailed (a few coins above a billion, most below a million), missing (NULL) for coins not
yet tracked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SERIES = ["imf_us_le_ix", "imf_us_ende", "imf_kr_le_ix", "imf_kr_pcpi_ix", "imf_kr_ende", "imf_jp_le_ix",
          "imf_jp_ende", "imf_ru_le_ix", "imf_ru_ende"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 100)
    months = pd.date_range("2010-01-01", "2018-12-01", freq="MS").strftime("%Y-%m-%d")
    out: dict[str, pd.DataFrame] = {}
    for name in SERIES:
        level = rng.uniform(50, 150) * np.cumprod(1 + rng.normal(0.001, 0.01, len(months)))
        frame = pd.DataFrame({"@TIME_PERIOD": months, "@OBS_VALUE": [f"{v:.4f}" for v in level]})
        out[name] = frame[rng.random(len(months)) > 0.04].reset_index(drop=True)
    days = pd.date_range("2013-04-28", "2018-12-31", freq="D")
    day = rng.choice(len(days), n)
    cap = np.round(rng.lognormal(13, 3, n))
    cap[rng.random(n) < 0.08] = np.nan
    out["crypto_markets"] = pd.DataFrame({
        "date": days[day].strftime("%Y-%m-%d"), "coin": [f"coin{i}" for i in rng.integers(0, max(n // 10, 5), n)],
        "price(USD)": np.round(rng.lognormal(0, 3, n), 6), "marketcap(USD)": cap,
    })
    return out
