"""Speed of the perturbative treatments (MDAV, noise, PRAM, rank swap, shuffle).

Run: ``python benchmarks/bench_perturbative.py`` (add ``--quick`` to skip the 1,000,000-record
MDAV run). Data: ``synthetic_survey`` persons, numeric income/expend/savings (skewed, many zeros),
categorical water/region.

Goals (issues 5, 8): MDAV k=3 on 3 numeric variables, 4,580 records < 0.1 s, 100,000 records
< 8 s (1,000,000 reported);
noise and PRAM on 1,000,000 records < 2 s. sdcMicro's C++ MDAV (O(n²/k)) published timings are
printed beside ours for the same sizes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.datasets import synthetic_survey  # noqa: E402
from sdcsession.methods.microaggregation.treatment import microaggregation  # noqa: E402
from sdcsession.methods.noise.addition import add_noise  # noqa: E402
from sdcsession.methods.pram.invariant import pram  # noqa: E402
from sdcsession.methods.swapping.rank_swapping import rank_swap  # noqa: E402
from sdcsession.methods.swapping.shuffling import shuffle  # noqa: E402

SDCMICRO_MDAV = {4_580: 0.06, 7_700: 0.18, 84_000: 46.0}
NUM = ["income", "expend", "savings"]


def timed(f, *a, **kw):
    t = time.perf_counter()
    r = f(*a, **kw)
    return time.perf_counter() - t, r


def main() -> None:
    quick = "--quick" in sys.argv
    big = synthetic_survey(320_000, seed=1).iloc[:1_000_000].reset_index(drop=True)
    print(f"data: {len(big):,} records")
    print("\nMDAV k=3 on income, expend, savings")
    print(f"{'records':>10} {'ours (s)':>10} {'sdcMicro (s)':>13} {'goal':>8}  groups")
    sizes = [4_580, 7_700, 84_000, 100_000] + ([] if quick else [1_000_000])
    for n in sizes:
        df = big.iloc[:n]
        t, (_, notes) = timed(microaggregation, df, NUM, k=3)
        ref = SDCMICRO_MDAV.get(n)
        goal = {4_580: "< 0.1 s", 100_000: "< 8 s"}.get(n, "")
        print(f"{n:>10,} {t:>10.2f} {ref if ref is not None else '-':>13} {goal:>8}  "
              f"{notes['n_groups']:,} (sizes {notes['group_sizes']})")
    print("\n1,000,000 records (goal < 2 s for noise and PRAM)")
    rng = np.random.default_rng(0)
    rows = [
        ("add_noise additive", lambda: add_noise(big, NUM, noise=0.5, rng=rng)),
        ("add_noise correlated", lambda: add_noise(big, NUM, method="correlated", noise=0.5,
                                                   rng=rng)),
        ("add_noise correlated2", lambda: add_noise(big, NUM, method="correlated2", noise=0.5,
                                                    rng=rng)),
        ("add_noise romm", lambda: add_noise(big, NUM, method="romm", noise=0.5, rng=rng)),
        ("add_noise outliers", lambda: add_noise(big, NUM, method="outliers", noise=0.5,
                                                 rng=rng)),
        ("pram water", lambda: pram(big, ["water"], rng=rng)),
        ("pram water, literacy by region", lambda: pram(big, ["water", "literacy"],
                                                        strata=["region"], rng=rng)),
        ("rank_swap p=5", lambda: rank_swap(big, NUM, p=5, rng=rng)),
        ("shuffle by age", lambda: shuffle(big, NUM, by=["age"], rng=rng)),
        ("individual_ranking k=3", lambda: microaggregation(big, NUM, k=3,
                                                            method="individual_ranking")),
        ("optimal_univariate k=3 (income)", lambda: microaggregation(
            big, ["income"], k=3, method="optimal_univariate")),
    ]
    for name, f in rows:
        t, _ = timed(f)
        print(f"  {name:<34} {t:7.2f} s")


if __name__ == "__main__":
    main()
