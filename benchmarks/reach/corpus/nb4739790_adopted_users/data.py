"""The Relax Inc. take-home data: users and their daily logins.

takehome_users: object_id, creation time and source, name and e-mail, mailing flags, org_id,
invited_by_user_id (NULL for about half: users who signed up on their own; an inviter may
have been invited or not). takehome_user_engagement: one row per user and login day
(time_stamp as text, visited = 1); most users log in once or twice, a minority often (skew),
so only some reach three logins within seven days.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    n_users = max(n // 5, 12)
    ids = np.arange(1, n_users + 1)
    invited = rng.random(n_users) < 0.5
    inviter = np.where(invited, rng.integers(1, n_users + 1, n_users), 0)
    inviter = pd.array(np.where(inviter == ids, 0, inviter), dtype="Int64")
    inviter[inviter == 0] = pd.NA
    created = pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 700, n_users), "D")
    users = pd.DataFrame({
        "object_id": ids.astype("int64"), "creation_time": created.strftime("%Y-%m-%d %H:%M:%S"),
        "name": [f"User {i}" for i in ids], "email": [f"user{i}@example.com" for i in ids],
        "creation_source": rng.choice(["ORG_INVITE", "GUEST_INVITE", "SIGNUP", "PERSONAL_PROJECTS"], n_users),
        "opted_in_to_mailing_list": rng.choice([0, 1], n_users).astype("int64"),
        "enabled_for_marketing_drip": rng.choice([0, 1], n_users).astype("int64"),
        "org_id": rng.integers(0, 40, n_users).astype("int64"), "invited_by_user_id": inviter,
    })
    activity = rng.choice([1.0, 3.0, 25.0], n_users, p=[0.6, 0.25, 0.15])
    logins = []
    for uid, start, rate in zip(ids, created, activity):
        days = np.unique(rng.integers(0, int(rate * 6) + 1, rng.poisson(rate) + 1))
        for d in days:
            logins.append(((start + pd.Timedelta(days=int(d), seconds=int(rng.integers(0, 86400))))
                           .strftime("%Y-%m-%d %H:%M:%S"), int(uid)))
    engagement = pd.DataFrame(logins, columns=["time_stamp", "user_id"])
    engagement["visited"] = np.int64(1)
    return {"takehome_users": users, "takehome_user_engagement": engagement}
