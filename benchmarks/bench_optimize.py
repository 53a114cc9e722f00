"""Benchmark: the optimiser against exhaustive grid sweeps over the same treatments.

A file of 6 keys and 3 numeric variables, 3-anonymity and two contracts (mean income by region
within 2 %, the income coefficient of ``expend ~ income`` in its 95 % CI). Two spaces:

- the 3 × 3 × 2 space of the acceptance test (18 plans): the optimiser with ``budget=12`` and
  the full grid sweep;
- a 3 × 3 × 3 × 3 × 2 space (162 plans: age groups, education groups, microaggregation k,
  noise, two suppression orders): the optimiser with ``budget=30`` and the full grid sweep.

Printed for each: evaluations, seconds, the least loss (λ) among the feasible plans of the
grid and on the optimiser's frontier, and the frontier's size (after a warm-up that takes the
imports and compiled kernels out of the timings). No timing assertion.

Run: ``nice -n 10 python benchmarks/bench_optimize.py [n_households]`` (default 300).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sdcsession as sdc  # noqa: E402

KEYS = ["region", "urbrur", "sex", "age5", "marstat", "educ"]
NUM = ["income", "expend", "savings"]


def groups(cats: list, size: int) -> dict:
    return {"|".join(map(str, cats[i:i + size])): cats[i:i + size]
            for i in range(0, len(cats), size)}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    df = sdc.datasets.synthetic_survey(n, seed=5)
    keep = [sdc.contracts.estimate("mean:income", by="region", tolerance=0.02),
            sdc.contracts.coefficients("expend ~ income", terms="income")]
    age = list(df["age5"].cat.categories)
    edu = list(df["educ"].cat.categories)
    supp = ("local_suppression", [
        {"k": 3, "importance": ["region", "sex", "urbrur", "educ", "marstat", "age5"]},
        {"k": 3, "importance": ["region", "age5", "educ", "marstat", "sex", "urbrur"]}])
    small = [("group_categories", [None, {"column": "age5", "groups": groups(age, 2)},
                                   {"column": "age5", "groups": groups(age, 4)}]),
             ("add_noise", [None, {"columns": NUM, "noise": 0.01},
                            {"columns": NUM, "noise": 0.05}]), supp]
    large = [small[0],
             ("group_categories", [None, {"column": "educ", "groups": groups(edu, 2)},
                                   {"column": "educ", "groups": groups(edu, 3)}]),
             ("microaggregation", [None, {"columns": NUM, "k": 3}, {"columns": NUM, "k": 5}]),
             small[1], supp]
    print(f"{len(df):,} records, 6 keys, 3 numeric variables; machine shared with other jobs")
    with warnings.catch_warnings():  # warm-up: imports and compiled kernels out of the timings
        warnings.simplefilter("ignore")
        w = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", seed=1)
        w.local_suppression(k=3).add_noise(NUM, noise=0.01).utility.check(keep)
        w.state.measure("lambda_overall")
    for name, plan, budget in (("3x3x2", small, 12), ("3x3x3x3x2", large, 30)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", seed=11)
            t0 = time.perf_counter()
            opt = s.optimize(privacy=[("k_anonymity", 3)], keep=keep, treatments=plan,
                             budget=budget, loss="lambda", seed=1)
            t_opt = time.perf_counter() - t0
            s2 = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", seed=11)
            t0 = time.perf_counter()
            sw = s2.sweep(plan, measures=["lambda", "k3_violations", *keep])
            t_grid = time.perf_counter() - t0
        t = sw.table
        ok = (t["k3_violations"] == 0) & (t[[f"contract: {c.name}" for c in keep]] >= 0).all(
            axis=1)
        print(f"{name}: grid {len(t)} plans in {t_grid:.1f} s, {int(ok.sum())} feasible, least "
              f"loss {t.loc[ok, 'lambda'].min():.6f}")
        print(f"{name}: optimiser {opt.evaluations} plans in {t_opt:.1f} s, "
              f"{len(opt)} on the frontier, least loss {opt.frontier['lambda'].min():.6f}")


if __name__ == "__main__":
    main()
