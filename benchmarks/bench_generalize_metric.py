"""Which default for ``generalize``: the node each rule chooses on census files, beside anjana's.

Run: ``python benchmarks/bench_generalize_metric.py [n ...]`` (default 10,000, 100,000 and
1,000,000 records). Data and hierarchies: ``bench_generalize.census`` (6 quasi-identifiers, 4,320
nodes). Models: k-anonymity k = 5 (anjana's and ARX's basic case) under suppression limits 1 %
and 5 %.

Rows: "anjana" (its node, rebuilt from its algorithm: anjana ``k_anonymity`` — while the
records of classes smaller than k exceed the suppression limit, generalise by one level the
quasi-identifier with the most distinct values in the current data, ties to the first column;
this is Sweeney's Datafly rule; anjana itself pins pandas 2.3 and numpy 2.0 and is not installed
next to pandas 3; anjana 1.2.3, run from its wheel on the 10,000 and 100,000 files, gave the same
levels and suppressions under both limits), "precision" and "loss" (the optimum of each metric over the whole lattice,
``baseline=None``), and "default" (``privacy.search`` with its defaults: metric "loss" among the
nodes no worse than the Datafly node). For each: the chosen levels, the records suppressed,
Sweeney's precision loss (``"precision"``, lower = more precise: suppressed records count the
full height), the level fraction Σ l_i/H_i / q (precision without the suppressed records),
Iyengar's loss (``"loss"``) and the search time.

Goal: the default suppresses no more records than anjana's node under the same limit while its
precision is at least anjana's (both precision figures no higher): "meets goal".
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_generalize import census, hierarchies  # noqa: E402

from sdcsession import privacy  # noqa: E402
from sdcsession.privacy.lattice import evaluate_node  # noqa: E402


def anjana_node(df, hs, models, limit) -> dict:
    """anjana's node: the greedy search of its k_anonymity (module docstring)."""
    levels = {c: 0 for c in hs}
    while True:
        r = evaluate_node(df, hs, models, levels, max_suppression=limit)
        if r.feasible:
            return levels
        open_ = [c for c in hs if levels[c] < hs[c].height]
        if not open_:
            raise RuntimeError("no feasible node on anjana's path")
        distinct = [hs[c].generalize(df[c], levels[c], column=c).nunique() for c in open_]
        c = open_[max(range(len(open_)), key=lambda i: (distinct[i], -i))]
        levels[c] += 1


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000, 1_000_000]
    print("machine shared with other jobs")
    print(f"{'records':>9} {'limit':>6} {'rule':<10} {'levels':<12} {'suppressed':>10} "
          f"{'precision loss':>15} {'level frac':>10} {'LM loss':>8} {'s':>6}")
    for n in sizes:
        df = census(n)
        hs = hierarchies()
        models = [privacy.KAnonymity(5)]
        for limit in (0.01, 0.05):
            rows = []
            for rule in ("anjana", "precision", "loss", "default"):
                t0 = time.perf_counter()
                if rule == "anjana":
                    levels = anjana_node(df, hs, models, limit)
                elif rule == "default":
                    levels = privacy.search(df, hs, models, max_suppression=limit).levels
                else:
                    levels = privacy.search(df, hs, models, max_suppression=limit,
                                            metric=rule, baseline=None).levels
                t = time.perf_counter() - t0
                pr = evaluate_node(df, hs, models, levels, max_suppression=limit,
                                   metric="precision")
                lm = evaluate_node(df, hs, models, levels, max_suppression=limit,
                                   metric="loss").loss
                frac = sum(levels[c] / hs[c].height for c in hs) / len(hs)
                rows.append((pr.suppressed, pr.loss, frac))
                verdict = ""
                if rule != "anjana":
                    a = rows[0]
                    ok = (pr.suppressed <= a[0] and pr.loss <= a[1] + 1e-12
                          and frac <= a[2] + 1e-12)
                    verdict = "meets goal" if ok else "FAILS goal"
                lv = ",".join(str(v) for v in levels.values())
                print(f"{n:>9,} {limit:>6.0%} {rule:<10} {lv:<12} {pr.suppressed:>10,} "
                      f"{pr.loss:>15.4f} {frac:>10.4f} {lm:>8.4f} {t:>6.1f}  {verdict}",
                      flush=True)


if __name__ == "__main__":
    main()
