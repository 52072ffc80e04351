"""The public Stack Overflow tables (posts_questions, posts_answers, users), the columns the
notebook selects.

Questions from 2019 to 2021 (the notebook keeps 2020 on), tags "|"-separated with a skew
towards python and javascript; about half have an accepted answer; answers include the
accepted ones and others, some with a deleted author (NULL owner) or, imported from an old
dump, no date; users with skewed reputation; a few answers by users missing from the users
table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TAGS = ["python", "javascript", "java", "pandas", "reactjs", "sql", "c#", "android", "r", "docker", "excel",
        "apache-spark", "flutter", "typescript", "html"]
TAG_P = np.array([16, 14, 10, 8, 8, 7, 7, 6, 5, 4, 4, 3, 3, 3, 2], dtype=float)


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_users = max(n // 4, 10)
    start = pd.Timestamp("2019-01-01")
    users = pd.DataFrame({"id": np.arange(1, n_users + 1, dtype="int64"),
                          "reputation": np.round(rng.lognormal(5, 2, n_users)).astype("int64"),
                          "creation_date": start - pd.to_timedelta(rng.integers(0, 3000, n_users), "D")})
    created = start + pd.to_timedelta(rng.integers(0, 3 * 365, n), "D") + pd.to_timedelta(rng.integers(0, 86400, n), "s")
    tags = ["|".join(rng.choice(TAGS, int(rng.integers(1, 4)), replace=False, p=TAG_P / TAG_P.sum())) for _ in range(n)]
    accepted = rng.random(n) < 0.5
    answer_ids = np.where(accepted, np.arange(100000, 100000 + n), -1)
    questions = pd.DataFrame({
        "id": np.arange(1, n + 1, dtype="int64"),
        "accepted_answer_id": pd.array(np.where(accepted, answer_ids, 0), dtype="Int64"),
        "answer_count": rng.poisson(1.5, n).astype("int64"), "comment_count": rng.poisson(2, n).astype("int64"),
        "creation_date": created, "owner_user_id": pd.array(rng.integers(1, n_users + 1, n), dtype="Int64"),
        "score": rng.integers(-3, 30, n).astype("int64"), "tags": tags,
        "view_count": np.round(rng.lognormal(5, 1.5, n)).astype("int64"),
    })
    questions.loc[~accepted, "accepted_answer_id"] = pd.NA
    m = int(accepted.sum())
    other = n // 3
    answered_at = np.concatenate([created[accepted] + pd.to_timedelta(rng.integers(60, 40 * 86400, m), "s"),
                                  start + pd.to_timedelta(rng.integers(0, 3 * 365, other), "D")])
    answers = pd.DataFrame({
        "id": np.concatenate([answer_ids[accepted], np.arange(200000, 200000 + other)]).astype("int64"),
        "creation_date": answered_at,
        "owner_user_id": pd.array(rng.integers(1, n_users + 20, m + other), dtype="Int64"),
        "score": rng.integers(-2, 50, m + other).astype("int64"),
        "post_type_id": np.full(m + other, 2, dtype="int64"),
    })
    answers.loc[rng.random(m + other) < 0.05, "owner_user_id"] = pd.NA
    answers.loc[rng.random(m + other) < 0.03, "creation_date"] = pd.NaT
    return {"posts_questions": questions, "posts_answers": answers, "users": users}
