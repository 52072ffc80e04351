"""A Crunchbase export of organizations with women founders: name, URL, category groups
(a comma-separated list of Crunchbase's groups), headquarters regions (a
comma-separated list, most specific first), founders' gender group, funding and size.

The export repeats some organizations (the same row twice); gender group, categories or
region are missing for some (NULL); regions are skewed towards the Bay Area and New York.
Three lists exported earlier (software, e-commerce and entertainment organizations) and a
list of Greater Boston organizations have the cleaned columns and a category already.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

GROUPS = ["Software", "Internet Services", "Artificial Intelligence", "Data and Analytics", "Health Care",
          "Financial Services", "Biotechnology", "Education", "Commerce and Shopping", "Media and Entertainment",
          "Robotics", "Food and Beverage", "Sports", "Gaming", "Real Estate", "Information Technology", "Hardware"]
REGIONS = ["San Francisco Bay Area, West Coast, Western US", "Greater New York Area, East Coast, Northeastern US",
           "European Union (EU)", "Greater Los Angeles Area, West Coast, Western US",
           "Greater Boston Area, East Coast, New England", "Greater Seattle Area, West Coast, Western US"]
ORDER = ["Finance", "Biotechnology", "Health Care", "E-Commerce", "Software", "Internet", "Information Technology",
         "Education", "Security", "Real Estate", "Tourism", "Artificial Intelligence", "Food", "Advertising",
         "Fashion", "Data", "Robotics", "Gaming", "Sports", "Entertainment", "Insurance"]


def _category(groups: str) -> str:
    return next((name for name in ORDER if name in groups), "Unknown")


def _organizations(rng: np.random.Generator, n: int, prefix: str) -> pd.DataFrame:
    groups = [", ".join(rng.choice(GROUPS, rng.integers(1, 4), replace=False)) for _ in range(n)]
    return pd.DataFrame({
        "Organization Name": [f"{prefix} {i}" for i in range(n)],
        "Category Groups": groups,
        "Headquarters Regions": rng.choice(REGIONS, n, p=[0.3, 0.2, 0.15, 0.12, 0.13, 0.1]),
        "Group Gender": rng.choice(["Female Founder", "Female Co-Founder"], n),
        "Total Funding Amount": np.round(rng.lognormal(15, 1.5, n)),
        "Number of Employees": rng.choice(["1-10", "11-50", "51-100", "101-250"], n),
    })


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 80)
    orgs = _organizations(rng, n, "Org")
    for column, share in [("Group Gender", 0.05), ("Category Groups", 0.04), ("Headquarters Regions", 0.06)]:
        orgs.loc[rng.random(n) < share, column] = None
    orgs = pd.concat([orgs, orgs.iloc[rng.choice(n, n // 20, replace=False)]], ignore_index=True)
    orgs.insert(0, "Unnamed: 0", np.arange(len(orgs), dtype="int64"))
    orgs.insert(2, "Organization Name URL", "https://www.crunchbase.com/organization/" + orgs["Organization Name"])

    def earlier(prefix: str, wanted: str | None, k: int) -> pd.DataFrame:
        frame = _organizations(rng, k, prefix)
        frame["Categories"] = [wanted if wanted and rng.random() < 0.7 else _category(g) for g in frame["Category Groups"]]
        return frame

    k = max(n // 8, 10)
    return {"organizations": orgs,
            "software_organizations": earlier("Software org", "Software", k),
            "ecommerce_organizations": earlier("Shop", "E-Commerce", k),
            "entertainment_organizations": earlier("Studio", "Entertainment", k),
            "boston_organizations": earlier("Boston org", None, k).assign(
                **{"Headquarters Regions": "Greater Boston Area, East Coast, New England"})}
