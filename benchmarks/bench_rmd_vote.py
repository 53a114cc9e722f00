"""The modal vote of ``rmd_risk``: how often it keeps covMcd's most frequent subset, and how many
FastMCD searches it runs, with and without the early end when the first three searches agree.

Run: ``python benchmarks/bench_rmd_vote.py``. Each search returns subset s with probability
q_s (the distribution of covMcd's outcome on one data set; subset 0 is the mode). The vote of
all ten runs keeps the most frequent subset (ties: the smaller index stands for the smaller
determinant) and stops as soon as no other subset can overtake the leader; the early end also
stops after three runs when they return the same subset. Printed per distribution: the share
of 20,000 simulated votes that keep the mode, and the mean number of searches.

The distributions: one optimum (every search agrees), a clear one (0.95), the CASC test pair
(covMcd returned one subset for 116 of 200 seeds and 14 others for the rest), two or three
competing optima, and flat ones. Figures printed by this script (seed 0):

    distribution      vote of 10: P(mode) searches | first 3 agree: P(mode) searches
    one                             1.000     6.00 |            1.000     3.00
    clear .95                       1.000     6.32 |            1.000     3.61
    casc .58                        0.994     8.01 |            0.993     7.20
    two .5/.3                       0.774     8.93 |            0.765     8.15
    close .4/.35                    0.550     9.21 |            0.543     8.55
    flat .2 x 5                     0.278     9.63 |            0.275     9.38

The early end costs at most 0.01 of the chance of keeping the mode, and halves the searches
on data with one clear optimum, the usual case (each search is most of ``rmd_risk``'s cost).
"""

from __future__ import annotations

import numpy as np

RUNS, AGREE, N = 10, 3, 20_000

DISTRIBUTIONS = [("one", [1.0]), ("clear .95", [0.95, 0.05]),
                 ("casc .58", [116 / 200] + [84 / 200 / 14] * 14),
                 ("two .5/.3", [0.5, 0.3, 0.2]), ("close .4/.35", [0.4, 0.35, 0.25]),
                 ("flat .2 x 5", [0.2] * 5)]


def vote(seq: np.ndarray, agree: int) -> tuple[int, int]:
    """(the subset kept, the searches run) for one sequence of outcomes."""
    counts = np.zeros(int(seq.max()) + 1, dtype=int)
    for i, s in enumerate(seq):
        counts[s] += 1
        done = i + 1
        if agree and done == agree and counts[s] == agree:
            return int(s), done
        left = RUNS - done
        lead = int(np.argmax(counts))  # the smaller index wins ties
        rivals = np.delete(counts, lead)
        if left < counts[lead] and (rivals.size == 0 or (rivals + left < counts[lead]).all()):
            return lead, done
    return int(np.argmax(counts)), RUNS


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'distribution':<16}{'vote of 10: P(mode) searches':>30} | "
          f"first 3 agree: P(mode) searches")
    for name, q in DISTRIBUTIONS:
        p = np.array(q) / sum(q)
        seqs = rng.choice(len(p), size=(N, RUNS), p=p)
        cells = []
        for agree in (0, AGREE):
            out = np.array([vote(s, agree) for s in seqs])
            cells.append(f"{np.mean(out[:, 0] == 0):.3f} {np.mean(out[:, 1]):8.2f}")
        print(f"{name:<16}{cells[0]:>30} | {cells[1]:>25}")


if __name__ == "__main__":
    main()
