"""Speed of the issue-18 options: restricted noise, rank swapping with top/bottom and r0/k0,
the shuffling methods, log-equidistant / quantile recoding, synthetic data and local
suppression with a k per stratum.

Run: ``python benchmarks/bench_treatment_options.py`` (``--quick``: 100,000 records instead of
1,000,000). Data: ``synthetic_survey`` persons, numeric income/expend/savings. No separate goals
are set for these options; they should cost about what the plain treatments cost.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthesize, synthetic_survey  # noqa: E402
from sdcsession.methods.noise.addition import add_noise  # noqa: E402
from sdcsession.methods.recoding.treatments import global_recode  # noqa: E402
from sdcsession.methods.suppression.local import local_suppression  # noqa: E402
from sdcsession.methods.swapping.rank_swapping import rank_swap  # noqa: E402
from sdcsession.methods.swapping.shuffling import shuffle  # noqa: E402

NUM = ["income", "expend", "savings"]


def timed(f, *a, **kw):
    t = time.perf_counter()
    r = f(*a, **kw)
    return time.perf_counter() - t, r


def main() -> None:
    n = 100_000 if "--quick" in sys.argv else 1_000_000
    big = synthetic_survey(n // 3 + 1000, seed=1).iloc[:n].reset_index(drop=True)
    small = big.iloc[:100_000]
    rng = np.random.default_rng(0)
    print(f"data: {len(big):,} records")
    rows = [
        (f"add_noise restricted, {n:,} x 3",
         lambda: add_noise(big, NUM, method="restricted", noise=0.5, rng=rng)),
        (f"rank_swap p=5, {n:,} x 3", lambda: rank_swap(big, NUM, p=5, rng=rng)),
        (f"rank_swap r0=0.95 top=bottom=5, {n:,} x 3",
         lambda: rank_swap(big, NUM, r0=0.95, top=5, bottom=5, rng=rng)),
        (f"global_recode quantile n=10, {n:,}",
         lambda: global_recode(big["expend"], method="quantile", n=10)),
        (f"global_recode log_equidistant n=10, {n:,}",
         lambda: global_recode(big["expend"], method="log_equidistant", n=10)),
        (f"synthesize {n:,} x 3", lambda: synthesize(big, NUM, n=n, seed=1)),
    ]
    for m, cov, reg in [("ds", None, None), ("ds", "spearman", None), ("mvn", "mcd", None),
                        ("mlm", None, "lm"), ("mlm_ds", None, "mm")]:
        rows.append((f"shuffle {m} cov={cov} reg={reg}, 100,000 x 2 | 1",
                     lambda m=m, cov=cov, reg=reg: shuffle(
                         small, ["income", "expend"], by=["savings"], method=m,
                         covmethod=cov, regmethod=reg, rng=rng)))
    keys = ["urbrur", "sex", "age5", "marstat"]
    regions = sorted(small["region"].unique())
    kmap = {r: 2 + i % 4 for i, r in enumerate(regions)}
    rows.append(("local_suppression k per region, 100,000, 4 keys",
                 lambda: local_suppression(small, keys, k=kmap, strata="region")))
    rows.append(("local_suppression k=5 per region, 100,000, 4 keys",
                 lambda: local_suppression(small, keys, k=5, strata="region")))
    print(f"{'step':<58} {'seconds':>8}")
    for name, f in rows:
        t, out = timed(f)
        extra = ""
        if isinstance(out, tuple) and isinstance(out[1], dict) and "total" in out[1]:
            extra = f"  suppressions {out[1]['total']:,}"
        print(f"{name:<58} {t:>8.2f}{extra}")


if __name__ == "__main__":
    main()
