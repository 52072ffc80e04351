"""Two rounds of a seat-allocation table scraped from the web, headerless (columns
numbered "0", "1", ...; "0" is the scrape's row number).

round_one: id of the programme at an institute, institute, programme, quota, category,
opening rank, closing rank, seat pool, round; round_two: id, institute, programme,
opening rank, closing rank, year. Institute names sometimes carry a line break from the
page ("Indian Institute of\\nTechnology Bombay"); a few ids are missing (NULL); some
programmes appear in one round only; IITs, NITs and other institutes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

INSTITUTES = ["Indian Institute of Technology Bombay", "Indian Institute of Technology Delhi",
              "Indian Institute of Technology Madras", "National Institute of Technology Trichy",
              "National Institute of Technology Warangal", "Indian Institute of Information Technology Allahabad",
              "Birla Institute of Technology Mesra"]


def _scraped(rng: np.random.Generator, names: np.ndarray) -> list[str | None]:
    out: list[str | None] = []
    for name in names:
        if rng.random() < 0.15:
            words = name.split(" ")
            cut = int(rng.integers(1, len(words)))
            name = " ".join(words[:cut]) + rng.choice(["\n", "\r\n"]) + " ".join(words[cut:])
        out.append(name)
    return out


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    institute = rng.choice(INSTITUTES, n, p=[0.12, 0.12, 0.1, 0.16, 0.16, 0.17, 0.17])
    opening = rng.integers(1, 20000, n)
    ids = pd.array(np.arange(n), dtype="Int64")
    ids[rng.random(n) < 0.02] = pd.NA
    college = _scraped(rng, institute)
    for i in rng.choice(n, max(n // 100, 1), replace=False):
        college[i] = None
    round_one = pd.DataFrame({
        "0": np.arange(n, dtype="int64"), "1": ids, "2": college,
        "3": rng.choice(["Computer Science", "Electrical", "Mechanical", "Civil", "Chemical"], n),
        "4": rng.choice(["AI", "HS", "OS"], n), "5": rng.choice(["OPEN", "OBC-NCL", "SC", "ST", "EWS"], n),
        "6": opening.astype("int64"), "7": (opening + rng.integers(0, 3000, n)).astype("int64"),
        "8": rng.choice(["Gender-Neutral", "Female-only"], n), "9": 1,
    })
    keep = rng.random(n) < 0.85
    second = np.flatnonzero(keep)
    extra = np.arange(n, n + n // 10)  # programmes only in the second round
    m = len(second) + len(extra)
    ids2 = pd.array(np.concatenate([second, extra]), dtype="Int64")
    ids2[rng.random(m) < 0.02] = pd.NA
    inst2 = np.concatenate([institute[second], rng.choice(INSTITUTES, len(extra))])
    open2 = np.concatenate([opening[second], rng.integers(1, 20000, len(extra))]) + rng.integers(0, 500, m)
    round_two = pd.DataFrame({
        "0": np.arange(m, dtype="int64"), "1": ids2, "2": _scraped(rng, inst2),
        "3": rng.choice(["Computer Science", "Electrical", "Mechanical", "Civil", "Chemical"], m),
        "4": open2.astype("int64"), "5": (open2 + rng.integers(0, 3000, m)).astype("int64"), "6": 2019,
    })
    return {"round_one": round_one, "round_two": round_two}
