"""Diagnostic: the floor of "fewest suppressions" under wildcard frequency counts.

Run: ``nice -n 5 python benchmarks/bench_wildcard_floor.py [sizes...]`` (default 10,000 /
100,000 / 1,000,000 records of the 15-key census-like file of
``bench_suppression_many_keys.py``, k = 3).

The project's frequency counts (sdcMicro's convention) treat a missing key value as a wildcard
that matches every value. Then suppressing every key of any k - 1 records makes the file
k-anonymous: each other record is compatible with itself and those k - 1 blank records, and a
blank record is compatible with all n. This costs (k - 1) x p suppressed values whatever n is.
The script builds that release and prints its violations by `sdcsession.risk.k_violations`
(0 expected) beside the suppressions of the local recoding and local suppression benchmarks.

Consequence for targets stated as "no more suppressions than method X": under wildcard counts
the suppression count alone does not measure protection (the floor above meets every such
target and protects nobody in substance); a many-key algorithm tuned only to that count drifts
towards it (a dynamic programme over the trie of sorted records, choosing per node either k - 1
"hub" records blanked on the keys that vary below the node or the best of its children, returns
exactly this floor at the root). A criterion that rules it out (for instance a cap on the values
suppressed per record, or counting records whose fk rests only on blanked records) has to be
chosen before comparing many-key algorithms on suppressions.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_suppression_many_keys import CARDS, census_keys  # noqa: E402

from sdcsession.risk import k_violations  # noqa: E402


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000, 1_000_000]
    k = 3
    keys = [f"k{j}" for j in range(len(CARDS))]
    for n in sizes:
        df = census_keys(n)
        t = time.process_time()
        out = df.copy()
        blank = np.zeros(n, bool)
        blank[: k - 1] = True  # any k - 1 records
        for c in keys:
            out[c] = out[c].where(~blank)
        viol = k_violations(out, keys, k)
        before = k_violations(df, keys, k)
        print(f"n={n:>9,}  keys={len(keys)}  k={k}  violations before {before:>9,}  after "
              f"{viol}  suppressed {(k - 1) * len(keys)}  ({time.process_time() - t:.2f} s CPU)",
              flush=True)


if __name__ == "__main__":
    main()
