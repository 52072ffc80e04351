"""Sports-reference tables: NBA draft picks (player, round, pick, team, year, 2000-2017)
and NCAA per-game statistics (one row per player and season, "2012-13" style, the
season written so that text order is time order).

Most college players are never drafted, and some drafted players never played in the
NCAA (internationals, high-school picks: no statistics); a player has one to four
seasons, points per game growing with experience; a few scraped rows have no season
(blank, NULL); the 2016-17 season is the current one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 80)
    k = max(n // 2, 30)
    players = [f"Player {i}" for i in range(k)]
    last = rng.integers(2000, 2018, k)  # year the last season ends
    seasons_played = rng.integers(1, 5, k)
    records = []
    for p, end, count in zip(players, last, seasons_played):
        skill = rng.gamma(3.0, 3.0)
        for j in range(count):
            start = int(end) - count + j
            season = f"{start}-{(start + 1) % 100:02d}"
            if rng.random() < 0.01:
                season = None
            records.append((p, ["FR", "SO", "JR", "SR"][min(j, 3)], season, round(skill * (1 + 0.2 * j), 1)))
    stats = pd.DataFrame(records, columns=["Player", "Class", "Season", "PTS"])
    m = len(stats)
    stats.insert(0, "Rk", np.arange(1, m + 1, dtype="int64"))
    stats["Pos"] = rng.choice(["G", "F", "C"], m)
    stats["School"] = rng.choice(["Duke", "Kentucky", "Kansas", "UCLA", "Gonzaga"], m)
    stats["Conf"] = rng.choice(["ACC", "SEC", "Big 12", "Pac-12", "WCC"], m)
    stats["G"] = rng.integers(10, 40, m).astype("int64")
    stats["MP"] = (stats["G"] * rng.uniform(10, 36, m)).round().astype("int64")
    stats["Min/Gm"] = (stats["MP"] / stats["G"]).round(1)
    stats["TRB"] = np.round(rng.gamma(2, 2.5, m), 1)
    stats["AST"] = np.round(rng.gamma(1.5, 1.5, m), 1)
    stats["FG%"] = np.round(rng.uniform(0.35, 0.6, m), 3)
    drafted = [p for p in players if rng.random() < 0.4] + [f"International {i}" for i in range(k // 20)]
    d = len(drafted)
    nba = pd.DataFrame({"Player": drafted, "Rd": rng.integers(1, 3, d).astype("int64"),
                        "Pk": rng.integers(1, 61, d).astype("int64"),
                        "Tm": rng.choice(["BOS", "LAL", "NYK", "CHI", "SAS"], d),
                        "Year": rng.integers(2000, 2018, d).astype("int64")})
    return {"nba_draft_picks_final": nba, "ncaa_stats": stats}
