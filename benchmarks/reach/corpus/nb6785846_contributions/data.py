"""Massachusetts campaign contributions, LinkedIn's Massachusetts companies, and the saved
employer-to-company match.

contribution_processed: one row per contribution, the employer as the donor typed it (case,
punctuation and spacing vary: "Google Inc.", "GOOGLE, INC", "google inc"), missing (NULL)
or "Retired" / "Self-employed" for many; amounts skewed (most under $200). ma_companies_on_linkedin:
company name, industry, size; a few names occur twice (two pages of one firm, listed under
different industries). employer_dict: cleaned employer -> cleaned company name, one row per
matched employer.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

FIRMS = [("Google Inc.", "Internet"), ("HubSpot", "Computer Software"), ("Akamai Technologies", "Internet"),
         ("Wayfair", "Internet"), ("Raytheon", "Defense & Space"), ("State Street", "Financial Services"),
         ("Fidelity Investments", "Financial Services"), ("Biogen", "Biotechnology"), ("Moderna", "Biotechnology"),
         ("Boston Scientific", "Medical Devices"), ("Mass General Hospital", "Hospital & Health Care"),
         ("Harvard University", "Higher Education"), ("MathWorks", "Computer Software"),
         ("Red Hat", "Computer Software"), ("Pegasystems", "Computer Software"), ("iRobot", "Consumer Electronics"),
         ("Analog Devices", "Semiconductors"), ("Liberty Mutual", "Insurance"), ("TripAdvisor", "Internet"),
         ("Dell EMC", "Information Technology & Services")]
DUPLICATE_PAGES = [("Red Hat", "Information Technology & Services"), ("Akamai Technologies", "Computer Software")]


def _clean(text: object) -> str:
    return re.sub("[^A-Za-z]+", "", str(text).lower())


def _typed(rng: np.random.Generator, name: str) -> str:
    form = rng.integers(0, 4)
    return [name, name.upper() + ", INC", name.lower(), name + "."][form]


def tables(rows: int, seed: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = max(rows, 60)
    others = [f"Company {i}" for i in range(200)]
    companies = pd.DataFrame(FIRMS + DUPLICATE_PAGES + [(c, rng.choice(["Retail", "Construction", "Computer Software",
                                                                         "Restaurants"])) for c in others],
                             columns=["Company name", "Industry"])
    companies["Company size"] = rng.choice(["11-50", "51-200", "201-500", "10,001+"], len(companies))
    kinds = rng.choice(3, n, p=[0.45, 0.35, 0.2])
    employers = []
    for kind in kinds:
        if kind == 0:
            employers.append(_typed(rng, FIRMS[int(rng.integers(0, len(FIRMS)))][0]))
        elif kind == 1:
            employers.append(rng.choice(["Retired", "Self-employed", "Not employed", None, "Homemaker"]))
        else:
            employers.append(f"Small Shop {rng.integers(0, 300)}")
    contributions = pd.DataFrame({
        "Date": pd.date_range("2018-01-01", periods=n, freq="3h").strftime("%m/%d/%Y"),
        "Contributor": [f"Donor {i}" for i in range(n)], "Employer": employers,
        "Amount": np.round(np.where(rng.random(n) < 0.85, rng.gamma(1.5, 60, n), rng.gamma(2.0, 500, n)), 2),
        "Recipient": rng.choice(["Baker, Charles", "Warren, Elizabeth", "Walsh, Martin", "Healey, Maura"], n),
    })
    matched = sorted({_clean(e) for e in employers if e is not None and not str(e).startswith("Small")}
                     - {"retired", "selfemployed", "notemployed", "homemaker"})
    by_clean = {_clean(name): _clean(name) for name, _ in FIRMS}
    employer_dict = pd.DataFrame({"employer": matched, "company": [by_clean.get(m, m) for m in matched]})
    return {"contribution_processed": contributions, "ma_companies_on_linkedin": companies,
            "employer_dict": employer_dict}
