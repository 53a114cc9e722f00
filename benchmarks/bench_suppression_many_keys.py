"""Benchmark: local suppression to k-anonymity with many keys (15 keys, k = 3; and 11 keys).

Run: ``nice -n 5 python benchmarks/bench_suppression_many_keys.py [sizes...]`` (default: the
cases of `CASES`, 10,000 / 100,000 / 1,000,000 records x 15 keys and 100,000 x 11 keys;
sizes given: 15 keys; ``--old``: the suppression rounds, the engine used before the clustering
of sorted records, at every size). Beside each figure: the figure of the rounds measured on
this machine (shared with other jobs: compare CPU seconds). The data: a census-like
generated file (`census_keys`): 15 key variables, half with 2-5 categories, half with 10-100,
skewed (Zipf-like) frequencies and correlated through a latent "profile" per record, so that
the frequent combinations are shared and the rare ones are the tails. Prints per size: wall
time, CPU time (``time.process_time``; the machine may be shared), suppressions, violations
after (`sdcsession.risk.k_violations`). Goal: 1,000,000 records x 15 keys under 60 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdcsession.methods.suppression.local import local_suppression  # noqa: E402
from sdcsession.risk import k_violations  # noqa: E402

CARDS = [2, 3, 4, 5, 2, 3, 5, 4, 10, 15, 20, 30, 50, 70, 100]


def census_keys(n: int, seed: int = 1, cards: list[int] | None = None) -> pd.DataFrame:
    """``n`` records on ``len(cards)`` categorical keys ``k0, k1, ...`` (``cards[j]`` categories
    each): a latent profile (one of 50) shifts every key's Zipf-like distribution, so keys are
    correlated and common combinations repeat."""
    cards = CARDS if cards is None else cards
    rng = np.random.default_rng(seed)
    prof = rng.integers(0, 50, n)
    cols = {}
    for j, c in enumerate(cards):
        p = 1.0 / np.arange(1, c + 1) ** 1.1
        p /= p.sum()
        shift = rng.integers(0, c, 50)  # each profile rotates the categories
        base = rng.choice(c, size=n, p=p)
        mix = rng.random(n) < 0.7
        v = np.where(mix, (base + shift[prof]) % c, base)
        cols[f"k{j}"] = pd.Categorical(v)
    return pd.DataFrame(cols)


#: (records, keys) -> (suppressions, CPU seconds) of the suppression rounds before the
#: clustering (measured on this machine; None: did not finish in 15 minutes)
BEFORE: dict[tuple[int, int], tuple[int, float] | None] = {
    (10_000, 15): (64_034, 9.2),
    (30_000, 15): (178_650, 20.2),
    (100_000, 15): (538_434, 115.7),
    (1_000_000, 15): None,
    (100_000, 11): (146_665, 29.8),  # 11 keys: the rounds are still used (no clustering)
}
CASES = [(10_000, 15), (100_000, 15), (1_000_000, 15), (100_000, 11)]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    cases = [(int(a), len(CARDS)) for a in args] or CASES
    if "--old" in sys.argv:
        from sdcsession.methods.suppression import _core

        _core.CLUSTER_KEYS = 99
    for n, p in cases:
        keys = [f"k{j}" for j in range(p)]
        df = census_keys(n, cards=CARDS[:p])
        t, c = time.perf_counter(), time.process_time()
        out, notes = local_suppression(df, keys, k=3, progress=False)
        sec, cpu = time.perf_counter() - t, time.process_time() - c
        viol = k_violations(out, keys, 3)
        print(f"n={n:>9,}  keys={len(keys)}  k=3  {notes['total']:>9,} suppressions "
              f"({notes['total'] / n:.3f}/record)  {sec:8.2f} s wall  {cpu:8.2f} s CPU  "
              f"rounds {notes['rounds']}  violations {viol}", flush=True)
        ref = BEFORE.get((n, p), "n/a")
        if ref is None:
            print("    before (suppression rounds): did not finish in 15 minutes", flush=True)
        elif ref != "n/a":
            print(f"    before (suppression rounds): {ref[0]:>9,} suppressions  {ref[1]:8.1f} s CPU"
                  f"  -> {notes['total'] / ref[0]:.0%} of the suppressions, "
                  f"CPU {ref[1] / max(cpu, 1e-9):.1f}x less", flush=True)


if __name__ == "__main__":
    main()
