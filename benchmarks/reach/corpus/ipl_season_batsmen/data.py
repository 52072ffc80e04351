"""The IPL tables of the "IPL data till 2017" set (Ball_By_Ball, Match, Player,
Player_match), with the column names the notebook's schemas give them and the columns its
steps use (the ball table's many match and player surrogate keys are left out).

Three seasons (2015 to 2017) of eight teams; a match is two innings of twenty overs, a
rain-abandoned one has no deliveries, no winner and no margin. Deliveries: about 38% dot
balls, wides and no-balls now and then (runs can be hit off a no-ball), byes and leg byes
counted as extras with no runs off the bat, wickets ending an innings at ten; the top of
the order faces most of the balls, so a few batsmen make most of a team's runs. Players:
names with initials, dots, apostrophes and hyphens; some with no bowling skill (NULL) and
batting hands written with a leading space or otherwise. Player-match rows: eleven per side
and match, plus the file's "N/A" row with key -1 and nothing else.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TEAMS = ["Chennai Super Kings", "Mumbai Indians", "Royal Challengers Bangalore", "Kolkata Knight Riders",
         "Sunrisers Hyderabad", "Delhi Daredevils", "Kings XI Punjab", "Rajasthan Royals"]
VENUES = [("Wankhede Stadium", "Mumbai"), ("M Chinnaswamy Stadium", "Bangalore"), ("Eden Gardens", "Kolkata"),
          ("Feroz Shah Kotla", "Delhi"), ("MA Chidambaram Stadium, Chepauk", "Chennai"),
          ("Rajiv Gandhi International Stadium, Uppal", "Hyderabad")]
FIRST = ["V", "MS", "AB", "RG", "S", "D'Arcy", "KL", "J", "R", "A", "Q", "M", "SV", "Y", "B"]
LAST = ["Kohli", "Dhoni", "de Villiers", "Sharma", "Raina", "Short", "Rahul", "Bumrah", "Ashwin", "Rahane",
        "de Kock", "Vijay", "Samson", "Chahal", "Kumar", "Pandya", "Iyer", "Jadeja", "Gambhir", "Warner",
        "Smith", "Gayle", "Narine", "Russell", "Williamson", "Dhawan", "Pant", "Rayudu", "Watson", "Morris",
        "Hetmyer", "O'Brien", "Rashid", "Khan-Ali"]
SKILLS = ["Right-arm offbreak", "Right-arm medium", "Slow left-arm orthodox", "Right-arm fast-medium", "Legbreak",
          "Legbreak googly", "Right-arm fast", "Left-arm fast-medium", " Right-arm offbreak"]
HANDS = ["Right-hand bat"] * 12 + ["Left-hand bat"] * 5 + [" Right-hand bat", " Left-hand bat", "Right-handed"]
RUNS = np.array([0, 1, 2, 3, 4, 6])
RUNS_P = np.array([0.38, 0.36, 0.085, 0.005, 0.115, 0.055])


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_matches = max(rows // 240, 6)
    squad = 16
    players = []
    for pid in range(1, len(TEAMS) * squad + 1):
        name = f"{FIRST[pid % len(FIRST)]} {LAST[(pid * 7) % len(LAST)]}"
        if pid % 11 == 0:
            name = name.replace(" ", ". ", 1)
        players.append({"player_sk": pid - 1, "player_id": pid, "player_name": name,
                        "dob": pd.Timestamp("1980-01-01") + pd.Timedelta(days=int(rng.integers(0, 6000))),
                        "batting_hand": str(rng.choice(HANDS)),
                        "bowling_skill": None if rng.random() < 0.12 else str(rng.choice(SKILLS)),
                        "country_name": "India" if rng.random() < 0.7 else str(rng.choice(
                            ["Australia", "South Africa", "West Indies", "England", "New Zealand"]))})
    player = pd.DataFrame(players)
    by_id = player.set_index("player_id")
    seasons = [2015, 2016, 2017]
    matches, pm_rows, balls = [], [], []
    for i in range(n_matches):
        season = seasons[i * len(seasons) // n_matches]
        t1, t2 = rng.choice(len(TEAMS), 2, replace=False)
        date = pd.Timestamp(f"{season}-04-08") + pd.Timedelta(days=int(i % max(n_matches // 3, 1)))
        venue, city = VENUES[int(rng.integers(len(VENUES)))]
        toss = int(rng.choice([t1, t2]))
        abandoned = rng.random() < 0.04
        match_id = 335987 + i * 3 + int(rng.integers(0, 3))
        xi = {t: rng.choice(np.arange(t * squad + 1, (t + 1) * squad + 1), 11, replace=False) for t in (t1, t2)}
        first_bat = toss if rng.random() < 0.5 else (t2 if toss == t1 else t1)
        order = [first_bat, t2 if first_bat == t1 else t1]
        totals = {}
        for innings, bat in enumerate(order if not abandoned else [], start=1):
            bowl = order[1] if bat == order[0] else order[0]
            batsmen = list(xi[bat])
            striker, non_striker, next_in = batsmen[0], batsmen[1], 2
            wickets, total = 0, 0
            for over in range(1, 21):
                bowler = int(xi[bowl][6 + over % 5])
                legal, ball = 0, 0
                while legal < 6 and wickets < 10:
                    ball += 1
                    kind = rng.random()
                    wide, noball = kind < 0.03, 0.03 <= kind < 0.045
                    bye = 0.045 <= kind < 0.07
                    runs = 0 if (wide or bye) else int(rng.choice(RUNS, p=RUNS_P))
                    extra = 1 if (wide or noball) else (int(rng.integers(1, 5)) if bye else 0)
                    out = (not wide and not noball and rng.random() < 0.05)
                    runs = 0 if out else runs
                    out_type = str(rng.choice(["caught", "bowled", "lbw", "run out"], p=[0.6, 0.2, 0.12, 0.08])) \
                        if out else "Not Applicable"
                    balls.append({"match_id": match_id, "over_id": over, "ball_id": ball, "innings_no": innings,
                                  "team_batting": TEAMS[bat], "team_bowling": TEAMS[bowl],
                                  "striker_batting_position": batsmen.index(striker) + 1,
                                  "extra_type": "wides" if wide else "noballs" if noball else
                                  ("byes" if bye and extra % 2 else "legbyes") if bye else "No Extras",
                                  "runs_scored": runs, "extra_runs": extra, "wides": int(wide),
                                  "legbyes": extra if bye and not extra % 2 else 0,
                                  "byes": extra if bye and extra % 2 else 0, "noballs": int(noball), "penalty": 0,
                                  "bowler_extras": extra if (wide or noball) else 0, "out_type": out_type,
                                  "caught": out_type == "caught", "bowled": out_type == "bowled",
                                  "run_out": out_type == "run out", "lbw": out_type == "lbw",
                                  "bowler_wicket": out and out_type != "run out", "match_date": date,
                                  "season": season, "striker": int(striker), "non_striker": int(non_striker),
                                  "bowler": bowler, "player_out": int(striker) if out else None,
                                  "fielders": int(rng.choice(xi[bowl])) if out_type in ("caught", "run out") else None})
                    total += runs + extra
                    if not (wide or noball):
                        legal += 1
                    if out:
                        wickets += 1
                        if next_in < 11:
                            striker, next_in = batsmen[next_in], next_in + 1
                    elif (runs + (extra if bye else 0)) % 2:
                        striker, non_striker = non_striker, striker
                striker, non_striker = non_striker, striker
                if wickets >= 10:
                    break
            totals[bat] = total
        if abandoned:
            winner, win_type, margin = None, "No Result", None
        else:
            winner = order[0] if totals[order[0]] > totals[order[1]] else order[1]
            win_type = "runs" if winner == order[0] else "wickets"
            margin = totals[order[0]] - totals[order[1]] if winner == order[0] else int(rng.integers(1, 10))
        matches.append({"match_sk": i, "match_id": match_id, "team1": TEAMS[t1], "team2": TEAMS[t2],
                        "match_date": date, "season_year": season, "venue_name": venue, "city_name": city,
                        "country_name": "India", "toss_winner": TEAMS[toss],
                        "match_winner": None if winner is None else TEAMS[winner],
                        "toss_name": str(rng.choice(["field", "bat"])), "win_type": win_type,
                        "outcome_type": "No Result" if abandoned else "Result",
                        "manofmach": None if abandoned else by_id.loc[int(rng.choice(xi[winner])), "player_name"],
                        "win_margin": margin, "country_id": 1})
        for t, other in ((t1, t2), (t2, t1)):
            for k, pid in enumerate(xi[t]):
                p = by_id.loc[int(pid)]
                pm_rows.append({"player_match_sk": len(pm_rows) + 12694, "playermatch_key": match_id * 100000 + int(pid),
                                "match_id": match_id, "player_id": int(pid), "player_name": p["player_name"],
                                "dob": p["dob"], "batting_hand": p["batting_hand"], "bowling_skill": p["bowling_skill"],
                                "country_name": p["country_name"], "role_desc": "Captain" if k == 0 else "Player",
                                "player_team": TEAMS[t], "opposit_team": TEAMS[other], "season_year": season,
                                "is_manofthematch": False, "age_as_on_match": int((date - p["dob"]).days // 365),
                                "isplayers_team_won": winner == t, "batting_status": None, "bowling_status": None,
                                "player_captain": by_id.loc[int(xi[t][0]), "player_name"],
                                "opposit_captain": by_id.loc[int(xi[other][0]), "player_name"],
                                "player_keeper": by_id.loc[int(xi[t][1]), "player_name"],
                                "opposit_keeper": by_id.loc[int(xi[other][1]), "player_name"]})
    na_row = {c: None for c in pm_rows[0]}
    na_row.update({"player_match_sk": -1, "playermatch_key": -1, "match_id": -1, "player_id": -1,
                   "player_name": "N/A"})
    player_match = pd.DataFrame([na_row] + pm_rows)
    player_match = player_match.astype({
        "player_match_sk": "int32", "playermatch_key": "int64", "match_id": "int32", "player_id": "int32",
        "season_year": "Int32", "age_as_on_match": "Int32", "is_manofthematch": "boolean",
        "isplayers_team_won": "boolean", "dob": "datetime64[us]", "batting_status": "string",
        "bowling_status": "string"})
    ball_by_ball = pd.DataFrame(balls).astype({
        "match_id": "int32", "over_id": "int32", "ball_id": "int32", "innings_no": "int32",
        "striker_batting_position": "int32", "runs_scored": "int32", "extra_runs": "int32", "wides": "int32",
        "legbyes": "int32", "byes": "int32", "noballs": "int32", "penalty": "int32", "bowler_extras": "int32",
        "season": "int32", "striker": "int32", "non_striker": "int32", "bowler": "int32", "player_out": "Int32",
        "fielders": "Int32", "match_date": "datetime64[us]"})
    match = pd.DataFrame(matches).astype({"match_sk": "int32", "match_id": "int32", "season_year": "int32",
                                          "win_margin": "Int32", "country_id": "int32",
                                          "match_date": "datetime64[us]"})
    player = player.astype({"player_sk": "int32", "player_id": "int32", "dob": "datetime64[us]"})
    return {"ball_by_ball": ball_by_ball, "match": match, "player": player, "player_match": player_match}
