"""Stack Overflow's public dump (the posts_questions, posts_answers and users tables).

Questions from 2018 to 2022 with one to five tags joined by "|" (python and javascript
common, pyspark rarer), about half with an accepted answer; answers, some by deleted users
(no owner, NULL), a few accepted answers dated before 2020 for questions of early 2020;
users with heavy-tailed reputation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TAGS = ["python", "javascript", "java", "pandas", "pyspark", "apache-spark", "sql", "dataframe", "r", "c#"]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 80)
    users = max(n // 4, 20)
    user_created = pd.Timestamp("2010-01-01") + pd.to_timedelta(rng.integers(0, 4000, users), "D")
    users_df = pd.DataFrame({"id": np.arange(1, users + 1, dtype="int64"),
                             "display_name": [f"user{i}" for i in range(1, users + 1)],
                             "reputation": np.round(rng.lognormal(5, 2, users)).astype("int64"),
                             "creation_date": user_created})
    created = pd.Timestamp("2018-01-01") + pd.to_timedelta(rng.integers(0, 5 * 365 * 24, n), "h")
    tags = ["|".join(rng.choice(TAGS, rng.integers(1, 6), replace=False,
                                p=[0.25, 0.2, 0.12, 0.1, 0.05, 0.05, 0.1, 0.06, 0.04, 0.03])) for _ in range(n)]
    has_accepted = rng.random(n) < 0.5
    answer_ids = np.arange(10_000_000, 10_000_000 + n)
    accepted = pd.array(np.where(has_accepted, answer_ids, 0), dtype="Int64")
    accepted[~has_accepted] = pd.NA
    questions = pd.DataFrame({
        "id": np.arange(1, n + 1, dtype="int64"), "title": [f"Question {i}" for i in range(n)],
        "accepted_answer_id": accepted, "answer_count": rng.poisson(1.5, n).astype("int64"),
        "comment_count": rng.poisson(2, n).astype("int64"), "creation_date": created,
        "owner_user_id": rng.integers(1, users + 1, n).astype("int64"),
        "score": rng.integers(-3, 30, n).astype("int64"), "tags": tags,
        "view_count": np.round(rng.lognormal(5, 1.5, n)).astype("int64"),
    })
    delay = pd.to_timedelta(rng.exponential(48, n).astype(int), "h")
    answer_created = created + delay
    answer_created = answer_created.where(rng.random(n) > 0.01, created - pd.Timedelta(days=3))
    owner = pd.array(rng.integers(1, users + 1, n), dtype="Int64")
    owner[rng.random(n) < 0.05] = pd.NA
    answers = pd.DataFrame({"id": answer_ids.astype("int64"), "creation_date": answer_created,
                            "owner_user_id": owner, "score": rng.integers(-2, 50, n).astype("int64"),
                            "post_type_id": np.full(n, 2, dtype="int64")})
    return {"posts_questions": questions, "posts_answers": answers, "users": users_df}
