"""Video game sales with critic and user scores (the VGChartz / Metacritic table as at
22 Dec 2016), one row per game and platform, sorted by global sales (best sellers first).

Sales in millions of units, heavily skewed (a few blockbusters, a long tail of games under
0.1M); a few rows without a name or genre, a year of release missing for about 2%, a
publisher missing for a few; critic and user scores missing for about half, the user score
written as text ("tbd" for a few).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PLATFORMS = ["PS2", "DS", "PS3", "Wii", "X360", "PSP", "PS", "PC", "XB", "GBA", "GC", "3DS", "PSV", "PS4", "N64"]
GENRES = ["Action", "Sports", "Misc", "Role-Playing", "Shooter", "Adventure", "Racing", "Platform", "Simulation",
          "Fighting", "Strategy", "Puzzle"]
PUBLISHERS = ["Electronic Arts", "Activision", "Namco Bandai Games", "Ubisoft", "Konami Digital Entertainment",
              "THQ", "Nintendo", "Sony Computer Entertainment", "Sega", "Take-Two Interactive"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 40)
    na = np.round(rng.pareto(1.3, n) * 0.12, 2)
    eu = np.round(na * rng.uniform(0.2, 0.9, n), 2)
    jp = np.round(np.where(rng.random(n) < 0.3, rng.pareto(1.5, n) * 0.1, 0.0), 2)
    other = np.round((na + eu) * 0.12, 2)
    global_sales = np.round(na + eu + jp + other, 2)

    def missing(values, share):
        values = np.array(values, dtype=object)
        values[rng.random(n) < share] = None
        return values

    year = np.round(rng.uniform(1985, 2017, n)).astype(float)
    year[rng.random(n) < 0.02] = np.nan
    critic = np.round(rng.normal(69, 14, n).clip(13, 98))
    critic[rng.random(n) < 0.5] = np.nan
    user = [None if u < 0.4 else ("tbd" if u < 0.45 else f"{s:.1f}") for u, s in zip(rng.random(n), rng.normal(7.1, 1.5, n).clip(0, 9.7))]
    frame = pd.DataFrame({
        "Name": missing([f"Game {i}" for i in range(n)], 0.002),
        "Platform": rng.choice(PLATFORMS, n),
        "Year_of_Release": year,
        "Genre": missing(list(rng.choice(GENRES, n)), 0.002),
        "Publisher": missing(list(rng.choice(PUBLISHERS, n)), 0.003),
        "NA_Sales": na, "EU_Sales": eu, "JP_Sales": jp, "Other_Sales": other, "Global_Sales": global_sales,
        "Critic_Score": critic,
        "Critic_Count": pd.array(np.where(np.isnan(critic), None, rng.integers(3, 100, n)), dtype="Int64"),
        "User_Score": user,
        "User_Count": pd.array([None if s is None or s == "tbd" else int(c) for s, c in zip(user, rng.integers(4, 5000, n))],
                               dtype="Int64"),
        "Developer": missing([f"Studio {i % 400}" for i in range(n)], 0.4),
        "Rating": missing(list(rng.choice(["E", "T", "M", "E10+"], n)), 0.4),
    })
    frame = frame.sort_values("Global_Sales", ascending=False, kind="stable").reset_index(drop=True)
    return {"video_games_sales": frame}
