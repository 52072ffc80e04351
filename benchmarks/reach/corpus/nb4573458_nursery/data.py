"""The UCI Nursery data (applications to nursery schools in Ljubljana, ranked by a
hierarchical decision model), read without `header=None`: the first record became the
header, so the columns are named after its values ("usual", "proper", "complete", "1",
"convenient", "convenient.1", "nonprob", "recommended", "recommend").

Eight attributes (parents' occupation, nursery, family form, children, housing, finance,
social and health conditions) and the class (not_recom, recommend, very_recom, priority,
spec_prior), which follows from the attributes: not_recom whenever health is not_recom,
very_recom rare and only for good conditions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

VALUES = {
    "usual": ["usual", "pretentious", "great_pret"],
    "proper": ["proper", "less_proper", "improper", "critical", "very_crit"],
    "complete": ["complete", "completed", "incomplete", "foster"],
    "1": ["1", "2", "3", "more"],
    "convenient": ["convenient", "less_conv", "critical"],
    "convenient.1": ["convenient", "inconv"],
    "nonprob": ["nonprob", "slightly_prob", "problematic"],
    "recommended": ["recommended", "priority", "not_recom"],
}


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 50)
    frame = pd.DataFrame({column: rng.choice(values, n) for column, values in VALUES.items()})
    score = (frame["usual"].map({"usual": 0, "pretentious": 1, "great_pret": 2})
             + frame["proper"].map({"proper": 0, "less_proper": 0, "improper": 1, "critical": 2, "very_crit": 2})
             + frame["convenient"].map({"convenient": 0, "less_conv": 1, "critical": 2})
             + frame["nonprob"].map({"nonprob": 0, "slightly_prob": 0, "problematic": 1})
             + rng.integers(0, 2, n))
    cls = np.where(score <= 1, "very_recom", np.where(score <= 3, "priority", "spec_prior")).astype(object)
    cls[(cls == "very_recom") & (frame["recommended"] == "priority").to_numpy()] = "priority"
    cls[(frame["recommended"] == "not_recom").to_numpy()] = "not_recom"
    cls[rng.random(n) < 0.001] = "recommend"
    frame["recommend"] = cls
    return {"nursery": frame}
