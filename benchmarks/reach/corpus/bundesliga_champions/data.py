"""European league match results (football_matches.csv, as read without a schema: every
column text): match id, division (D1, D2, E0, SP1, ...), season, date, home and away
team, full-time goals and result (H, A, D).

About a third of the matches are the Bundesliga's (D1), eighteen teams a season, each
meeting each other twice; stronger teams win more; the seasons run from 1993 to 2017, so
the notebook's 2000-2015 range removes some.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TEAMS = ["Bayern Munich", "Dortmund", "Leverkusen", "Schalke 04", "Werder Bremen", "Stuttgart", "Hamburg",
         "Wolfsburg", "M'gladbach", "Hertha", "Hoffenheim", "Mainz", "Freiburg", "Koln", "Hannover", "Nurnberg",
         "Kaiserslautern", "Frankfurt", "Bochum", "Hansa Rostock"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 100)
    strength = {t: s for t, s in zip(TEAMS, rng.gamma(3.0, 0.5, len(TEAMS)))}
    records = []
    match_id = 0
    d1 = n // 2
    seasons = list(range(1993, 2018))
    while len(records) < d1:
        season = int(rng.choice(seasons))
        home, away = rng.choice(TEAMS, 2, replace=False)
        hg = int(rng.poisson(1.0 + 0.4 * strength[home]))
        ag = int(rng.poisson(0.7 + 0.4 * strength[away]))
        match_id += 1
        records.append((match_id, "D1", season, home, away, hg, ag))
    while len(records) < n:
        match_id += 1
        records.append((match_id, str(rng.choice(["D2", "E0", "SP1", "I1"])), int(rng.choice(seasons)),
                        f"Club {rng.integers(0, 60)}", f"Club {rng.integers(60, 120)}", int(rng.poisson(1.4)),
                        int(rng.poisson(1.1))))
    frame = pd.DataFrame(records, columns=["Match_ID", "Div", "Season", "HomeTeam", "AwayTeam", "FTHG", "FTAG"])
    frame["Date"] = [f"{s}-{rng.integers(8, 13):02d}-{rng.integers(1, 29):02d}" for s in frame["Season"]]
    frame["FTR"] = np.where(frame["FTHG"] > frame["FTAG"], "H", np.where(frame["FTHG"] < frame["FTAG"], "A", "D"))
    frame = frame[["Match_ID", "Div", "Season", "Date", "HomeTeam", "AwayTeam", "FTHG", "FTAG", "FTR"]]
    return {"football_matches": frame.astype(str)}
