"""Benchmark: local suppression to k-anonymity with many keys (15 keys, k = 3; and 11 keys).

Run: ``nice -n 5 python benchmarks/bench_suppression_many_keys.py [sizes...]`` (default: the
cases of `CASES`, 10,000 / 100,000 / 1,000,000 records x 15 keys and 100,000 x 11 keys;
sizes given: 15 keys; ``--old``: the suppression rounds, the engine used before the clustering
of sorted records, at every size; ``--cluster``: the clustering of sorted records, the many-keys
engine before the hub trie; ``--cap C``: the hub trie's ``max_suppressed_per_record``).
Beyond 11 keys the engine is the hub trie (`sdcsession.methods.suppression._hub_trie`: records
sorted on the keys form a trie, a node of m >= k records is made safe by k - 1 hub records
blanked on the keys varying in it, at most ``cap`` = floor(p / 2) values per record, exact
bottom-up dynamic programme, O(n p^2), one sort), followed by the restoration pass up to
50,000 records; the clustering's figures recorded on this machine are printed beside it.

Figures measured on this machine (shared; ``nice -n 5``, command
``... bench_suppression_many_keys.py 10000 100000 1000000`` and the same with ``--cluster``):

* 10,000 x 15: hub trie + restoration 25,767 suppressions (2.58/record), 0.6 s CPU, at most 7
  per record, 0 violations; clustering 44,997 (7.8 s CPU); rounds 64,034 (9.2 s CPU);
* 100,000 x 15: 129,947 (1.30/record), 0.45 s CPU; clustering 421,065; rounds 538,434;
* 1,000,000 x 15: 201,600 (0.20/record), 5.4 s CPU (10.3 s wall, shared), 0 violations;
  clustering 3,660,688 (3.7 s CPU); the rounds did not finish in 15 minutes.
 Beside each figure: the figure of the rounds measured on
this machine (shared with other jobs: compare CPU seconds). The data: a census-like
generated file (`census_keys`): 15 key variables, half with 2-5 categories, half with 10-100,
skewed (Zipf-like) frequencies and correlated through a latent "profile" per record, so that
the frequent combinations are shared and the rare ones are the tails. Prints per size: wall
time, CPU time (``time.process_time``; the machine may be shared), suppressions, violations
after (`sdcsession.risk.k_violations`), and the records below k at alpha = 0, when other
records' missing values stop counting as wildcards (the release check's ``wildcards`` warning:
the hub trie leaves 971,200 of 1,000,000 records so, every record that keeps all 15 values; the
rounds on 100,000 records x 11 keys leave 5,549 complete records, each unique among the
complete ones). Goal: 1,000,000 records x 15 keys under 60 s.
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
#: (records, keys) -> (suppressions, CPU seconds) of the clustering of sorted records, the
#: many-keys engine before the hub trie (measured on this machine, ``--cluster``)
CLUSTER = {(10_000, 15): (44_997, 7.8), (100_000, 15): (421_065, 0.4),
           (1_000_000, 15): (3_660_688, 3.7)}
CASES = [(10_000, 15), (100_000, 15), (1_000_000, 15), (100_000, 11)]


def main() -> None:
    argv = sys.argv[1:]
    cap = None
    if "--cap" in argv:
        i = argv.index("--cap")
        cap = int(argv[i + 1])
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if "--cluster" in argv:
        from sdcsession.methods.suppression import _cluster

        _cluster.MANY_KEYS_ENGINE = "cluster"
    cases = [(int(a), len(CARDS)) for a in args] or CASES
    if "--old" in sys.argv:
        from sdcsession.methods.suppression import _core

        _core.CLUSTER_KEYS = 99
    for n, p in cases:
        keys = [f"k{j}" for j in range(p)]
        df = census_keys(n, cards=CARDS[:p])
        t, c = time.perf_counter(), time.process_time()
        out, notes = local_suppression(df, keys, k=3, progress=False,
                                       max_suppressed_per_record=cap)
        sec, cpu = time.perf_counter() - t, time.process_time() - c
        viol = k_violations(out, keys, 3)
        # below k once other records' blanks stop counting (the release check's wildcards)
        strict = k_violations(out, keys, 3, alpha=0.0)
        most = int((out[keys].isna() & df[keys].notna()).sum(axis=1).max())
        print(f"n={n:>9,}  keys={len(keys)}  k=3  {notes['total']:>9,} suppressions "
              f"({notes['total'] / n:.3f}/record)  {sec:8.2f} s wall  {cpu:8.2f} s CPU  "
              f"rounds {notes['rounds']}  most per record {most}  fallback records "
              f"{notes.get('fallback_records', '-')}  violations {viol}  below k at alpha=0 "
              f"{strict:,}", flush=True)
        ref = CLUSTER.get((n, p))
        if ref is not None and "--cluster" not in argv and "--old" not in argv:
            print(f"    clustering of sorted records (recorded): {ref[0]:>9,} suppressions  "
                  f"{ref[1]:6.1f} s CPU  -> {notes['total'] / ref[0]:.0%} of its suppressions",
                  flush=True)
        ref = BEFORE.get((n, p), "n/a")
        if ref is None:
            print("    before (suppression rounds): did not finish in 15 minutes", flush=True)
        elif ref != "n/a":
            print(f"    before (suppression rounds): {ref[0]:>9,} suppressions  {ref[1]:8.1f} s CPU"
                  f"  -> {notes['total'] / ref[0]:.0%} of the suppressions, "
                  f"CPU {ref[1] / max(cpu, 1e-9):.1f}x less", flush=True)


if __name__ == "__main__":
    main()
