"""The Sparkify event log (the course's mini_sparkify_event_data.json), one row per page
opened: artist, auth, firstName, gender, itemInSession, lastName, length, level, location,
method, page, registration, sessionId, song, status, ts, userAgent, userId.

Users with very different activity (a few heavy listeners, many light ones), sessions of
songs played back to back with clicks in between: thumbs up or down and "Add to Playlist"
while a song plays, Home, Settings, Add Friend, adverts for free users, upgrades and
downgrades. Each user skips songs at a rate of their own: a skipped song is followed by the
next one before its end, a song played through by the next one exactly its whole seconds
later. About a quarter of the users leave (Cancel, then Cancellation Confirmation, at the end
of their last session). Logged-out visitors have an empty userId and no registration, name,
gender, location or user agent; pages that are not songs have no artist, song or length.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ARTISTS = ["Kings Of Leon", "Coldplay", "Florence + The Machine", "Dwight Yoakam", "Björk", "The Black Keys",
           "Muse", "Jack Johnson", "Eminem", "John Mayer", "Radiohead", "Daft Punk"]
SONGS = ["You're The One", "Undo", "Revelry", "Sehr kosmisch", "Horn Concerto No. 4", "Secrets", "Use Somebody",
         "Canada", "Invalid", "Catch You Baby", "Yellow", "Dog Days Are Over"]
CITIES = ["Bakersfield, CA", "Boston-Cambridge-Newton, MA-NH", "Houston-The Woodlands-Sugar Land, TX",
          "Raleigh, NC", "Los Angeles-Long Beach-Anaheim, CA", "New York-Newark-Jersey City, NY-NJ-PA"]
AGENTS = ['"Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/36.0.1985.143"',
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.9; rv:31.0) Gecko/20100101 Firefox/31.0",
          '"Mozilla/5.0 (iPhone; CPU iPhone OS 7_1_2 like Mac OS X) AppleWebKit/537.51.2 (KHTML, like Gecko)"']
# clicks between songs, with their weights; "during" clicks happen while the song plays on
BETWEEN = {"Home": 8, "Add Friend": 3, "Roll Advert": 4, "Settings": 1, "Help": 1, "About": 1, "Error": 0.3,
           "Upgrade": 0.6, "Downgrade": 0.6, "Save Settings": 0.3, "Logout": 1.5}
DURING = {"Thumbs Up": 10, "Thumbs Down": 2.5, "Add to Playlist": 5}
GET_PAGES = {"Home", "Settings", "Help", "About", "Error", "Upgrade", "Downgrade", "Cancel", "Login", "Register"}
START = pd.Timestamp("2018-10-01").value // 10**6  # ms


def _status(page: str) -> int:
    if page == "Error":
        return 404
    return 307 if page in {"Thumbs Up", "Thumbs Down", "Add Friend", "Logout", "Submit Downgrade",
                           "Submit Upgrade", "Save Settings", "Cancel", "Cancellation Confirmation"} else 200


class _Session:
    """One session's events, numbered in order as they are added."""

    def __init__(self, records: list[dict], profile: dict, session_id: int) -> None:
        self.records, self.profile, self.session_id, self.item = records, profile, session_id, 0

    def add(self, page: str, ts: int, level: str, artist=None, song=None, length=None) -> None:
        self.records.append({**self.profile, "auth": "Cancelled" if page == "Cancellation Confirmation" else "Logged In",
                             "level": level, "page": page, "method": "GET" if page in GET_PAGES else "PUT",
                             "status": _status(page), "sessionId": self.session_id, "itemInSession": self.item,
                             "ts": ts, "artist": artist, "song": song, "length": length})
        self.item += 1


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 300)
    n_users = max(n // 80, 10)
    ids = rng.choice(np.arange(2, 300100), n_users, replace=False)
    budget = np.maximum((rng.lognormal(0, 0.9, n_users) / 1.5 * n / n_users).astype(int), 25)
    budget = np.maximum((budget * (0.8 * n / budget.sum())).astype(int), 20)
    session_pool = rng.permutation(np.arange(1, 3 * n_users * 12))
    records: list[dict] = []
    next_session = 0
    for u in range(n_users):
        uid = str(ids[u])
        profile = {"userId": uid, "firstName": f"User{u}", "lastName": f"Name{u}",
                   "gender": rng.choice(["F", "M"]), "location": rng.choice(CITIES),
                   "userAgent": rng.choice(AGENTS),
                   "registration": int(START - rng.integers(5, 200) * 86_400_000 - rng.integers(0, 86_400_000))}
        level = "paid" if rng.random() < 0.45 else "free"
        skip_p = float(rng.beta(1.6, 2.4))
        leaves = rng.random() < 0.25
        t = START + int(rng.integers(0, 20 * 86_400_000))
        left = int(budget[u])
        while left > 0:
            length_of_session = int(min(left, rng.integers(8, 60)))
            left -= length_of_session
            last = left <= 0
            session_id = int(session_pool[next_session])
            next_session += 1
            session = _Session(records, profile, session_id)
            for _ in range(length_of_session):
                if rng.random() < 0.8:  # a song, perhaps with clicks while it plays
                    length = round(float(rng.lognormal(5.45, 0.3)), 5)
                    session.add("NextSong", t, level, artist=rng.choice(ARTISTS), song=rng.choice(SONGS), length=length)
                    whole = int(np.floor(length)) * 1000
                    gap = int(rng.uniform(0.1, 0.9) * whole) if rng.random() < skip_p else whole
                    clicks = [p for p, w in DURING.items() if rng.random() < w / 100]
                    for k, page in enumerate(clicks):
                        session.add(page, t + (k + 1) * gap // (len(clicks) + 1), level)
                    t += gap
                else:
                    names, weights = zip(*BETWEEN.items())
                    page = str(rng.choice(names, p=np.array(weights) / sum(weights)))
                    if page == "Roll Advert" and level == "paid":
                        page = "Home"
                    session.add(page, t, level)
                    if page in ("Upgrade", "Downgrade") and rng.random() < 0.5:
                        t += int(rng.integers(5, 40)) * 1000
                        session.add(f"Submit {page}", t, level)
                        level = "paid" if page == "Upgrade" else "free"
                    t += int(rng.integers(3, 90)) * 1000
            if last and leaves:
                session.add("Cancel", t, level)
                session.add("Cancellation Confirmation", t + int(rng.integers(2, 30)) * 1000, level)
            t += int(rng.integers(1, 72)) * 3_600_000  # until the next session
    # logged-out visitors: home, login and help pages, with no user to them
    for _ in range(max(n // 60, 4)):
        session_id = int(session_pool[next_session])
        next_session += 1
        t = START + int(rng.integers(0, 60 * 86_400_000))
        for item, page in enumerate(rng.choice(["Home", "Login", "About", "Help", "Register"], int(rng.integers(1, 4)))):
            records.append({"userId": "", "firstName": None, "lastName": None, "gender": None, "location": None,
                            "userAgent": None, "registration": None, "auth": "Logged Out",
                            "level": rng.choice(["free", "paid"]), "page": str(page),
                            "method": "GET" if page in GET_PAGES else "PUT", "status": 200, "sessionId": session_id,
                            "itemInSession": item, "ts": t + item * 7000, "artist": None, "song": None,
                            "length": None})
    frame = pd.DataFrame.from_records(records)
    frame = frame.iloc[np.argsort(frame["ts"].to_numpy(), kind="stable")].reset_index(drop=True)
    return {"mini_sparkify_event_data": pd.DataFrame({
        "artist": frame["artist"], "auth": frame["auth"], "firstName": frame["firstName"],
        "gender": frame["gender"], "itemInSession": frame["itemInSession"].astype("int64"),
        "lastName": frame["lastName"], "length": frame["length"].astype("float64"), "level": frame["level"],
        "location": frame["location"], "method": frame["method"], "page": frame["page"],
        "registration": frame["registration"].astype("Int64"), "sessionId": frame["sessionId"].astype("int64"),
        "song": frame["song"], "status": frame["status"].astype("int64"), "ts": frame["ts"].astype("int64"),
        "userAgent": frame["userAgent"], "userId": frame["userId"],
    })}
