"""Benchmark: optimal generalisation on a census-like file.

Goal: 100,000 records, 6 quasi-identifiers with hierarchy heights 2–5 (4,320 lattice nodes),
k-anonymity (k = 5) and t-closeness (t = 0.15, equal distance) with 2 % suppression: the optimal
search (and the released step) in under 30 s; 1,000,000 records (``--million``) in under 5 min.

Run: ``nice -n 10 python benchmarks/bench_generalize.py [n] [--million]``. Prints, per run, the
time of the search alone and of the whole session step, the nodes checked, the chosen levels and
whether the released file satisfies the models (``privacy.check``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sdcsession as sdc  # noqa: E402
from sdcsession import privacy  # noqa: E402

H = sdc.Hierarchy


def census(n: int, seed: int = 1) -> pd.DataFrame:
    """A census-like file: age, zip (4 digits), sex, marital status, education, citizenship,
    and a sensitive diagnosis whose distribution depends on age and sex."""
    rng = np.random.default_rng(seed)
    age = np.minimum(rng.gamma(4.0, 10.0, n).astype(np.int64), 99)
    zips = np.array([f"{z:04d}" for z in rng.choice(np.arange(1000, 10000, 37), 200)])
    zp = zips[np.minimum(rng.zipf(1.3, n) - 1, 199)]
    sex = rng.choice(["m", "f"], n)
    mar = rng.choice(["single", "married", "divorced", "widowed"], n, p=[.4, .4, .12, .08])
    edu = rng.choice(["none", "primary", "secondary", "bachelor", "master", "doctorate"], n,
                     p=[.05, .25, .4, .18, .1, .02])
    cit = rng.choice(["national", "EU", "other"], n, p=[.85, .1, .05])
    dis = np.array(["flu", "cold", "asthma", "diabetes", "cancer", "heart", "ulcer", "hiv"])
    p = rng.random((n, len(dis))) + (age[:, None] / 100.0) * np.arange(len(dis)) / 4
    diag = dis[np.argmax(p * rng.random((n, len(dis))), axis=1)]
    return pd.DataFrame({"age": age, "zip": zp, "sex": sex, "marital": mar, "educ": edu,
                         "citizen": cit, "diagnosis": diag})


def hierarchies() -> dict[str, sdc.Hierarchy]:
    """Heights age 5, zip 4, marital 3, educ 3, sex 2, citizen 2: 6·5·4·4·3·3 = 4,320 nodes."""
    return {
        "age": H.intervals([list(range(0, 101, 5)), list(range(0, 101, 10)),
                            [0, 20, 40, 60, 80, 100], [0, 40, 80, 100]]),
        "zip": H.masking(4),
        "marital": H.from_frame([["single", "alone", "any", "*"],
                                 ["divorced", "alone", "any", "*"],
                                 ["widowed", "alone", "any", "*"],
                                 ["married", "couple", "any", "*"]]),
        "educ": H.from_nested({"*": {"school": {"basic": ["none", "primary"],
                                                "sec": ["secondary"]},
                                     "university": {"first": ["bachelor"],
                                                    "higher": ["master", "doctorate"]}}}),
        "sex": H.from_frame([["m", "person", "*"], ["f", "person", "*"]]),
        "citizen": H.from_frame([["national", "national", "*"], ["EU", "foreign", "*"],
                                 ["other", "foreign", "*"]]),
    }


def run(n: int) -> None:
    df = census(n)
    hs = hierarchies()
    models = [privacy.KAnonymity(5), privacy.TCloseness("diagnosis", 0.15)]
    t0 = time.perf_counter()
    r = privacy.search(df, hs, models, max_suppression=0.02)
    t_search = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = sdc.SdcSession(df, keys=list(hs), sensitive=["diagnosis"], seed=1)
    s.generalize(hs, models, max_suppression=0.02)
    t_step = time.perf_counter() - t0
    ok = privacy.check(s.data, list(hs), models)
    g = s.generalization
    print(f"n={n:,}: search {t_search:.2f} s, session step {t_step:.2f} s; "
          f"{r.nodes_checked} of {r.nodes_total} nodes checked; levels {g.levels}; "
          f"{g.metric} {g.value:.4f}; suppressed {g.suppressed} (Datafly/anjana node: "
          f"{g.baseline['suppressed'] if g.baseline else '-'}); models hold: {bool(ok)}")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    run(int(args[0]) if args else 100_000)
    if "--million" in sys.argv:
        run(1_000_000)


if __name__ == "__main__":
    main()
