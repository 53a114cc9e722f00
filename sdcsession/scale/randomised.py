"""PRAM and noise addition on Dask frames: parameters estimated globally, draws per partition.

PRAM (with ``given`` and ``bandwidth`` too): the categories and the frequencies (per stratum) of every column are counted over the whole
frame, so the transition matrices are exactly those of the in-memory `sdcsession.methods.pram.invariant`;
each partition then draws its records' new categories. Noise (``"additive"``, ``"additive0"``,
``"correlated"``, ``"correlated2"``): the standard deviations, means and the (pairwise-complete)
covariance matrix, and the variables' domain (minimum, maximum, whole numbers) are computed over
the whole frame in two passes (means, then centred sums), then each partition draws its noise;
``additive0``, ``bounds`` and the domain warnings follow the in-memory rules
(`sdcsession.methods.noise.domain`) with the same parameters.

What the seed guarantees: every record draws what it draws on the in-memory path, whatever the
partitioning. PRAM draws one uniform per record and column from ``default_rng(step_seed)``
(column after column, as in memory); a partition starting at record ``o`` of ``n`` continues that
stream at word ``j*n + o`` (`record_stream`, PCG64's ``advance``), so PRAM equals the in-memory
result bit for bit. Noise draws ``standard_normal((n, p))`` from the same stream; the generator's
state at each partition's first record is found on the client (`stream_states`), so every record
gets the same normal draws as in memory. The moments (means, standard deviations, the pairwise
covariance matrix) come from exact sums over the partitions rounded once
(`sdcsession.risk.exact_moments`), as in memory, and correlated draws are formed record by record
(`sdcsession.methods.noise.covariance.correlated_draws`): noise equals the in-memory result bit
for bit, notes included.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> from sdcsession.methods.pram.invariant import Pram
>>> from sdcsession.roles import Roles
>>> ddf = dd.from_pandas(pd.DataFrame({"x": ["a", "b"] * 50}), npartitions=3)
>>> out = apply_distributed(Pram(["x"], pd=0.8, alpha=0.5), ddf, Roles(keys=("x",)), seed=7,
...                         progress=False)
>>> out.notes["matrices"]["x"]["all"]["categories"]
['a', 'b']
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SdcWarning, TreatmentError, user_stacklevel
from ..methods.base import require_columns
from ..methods.noise.addition import AddNoise, numeric_block
from ..methods.noise.covariance import (
    _warn_covariance,
    correlated_draws,
    noise_moments,
    realised_sd,
)
from ..methods.noise.domain import (
    DomainFacts,
    bound_block,
    check_within,
    domain_counts,
    domain_facts,
    warn_domain_counts,
)
from ..methods.pram.invariant import (
    MAX_CATEGORIES,
    MAX_NUMERIC_CATEGORIES,
    Pram,
    _draw,
    _label,
    _split_matrix,
    codes_to_column,
    column_base,
    stratum_matrix,
)
from ..risk.exact_moments import column_means, column_parts, pair_parts, spread_parts
from ..roles import Roles
from ._base import compute, mixed_radix, radix, record_stream
from ._encode import encode_part, scan
from .elementwise import (
    DistributedResult,
    apply_distributed,
    distributed,
    map_columns,
    not_distributable,
    partition_stats,
    replace_columns,
)

__all__ = ["apply_distributed"]


# ----------------------------------------------------------------------------------- PRAM
def _column_codes(s: pd.Series, cats: pd.Index) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.cat.codes.to_numpy().astype(np.int64)
    codes = cats.get_indexer(s).astype(np.int64)
    codes[s.isna().to_numpy(dtype=bool)] = -1
    return codes


def _strata_code(part: pd.DataFrame, splan: Any) -> np.ndarray:
    if splan is None:
        return np.zeros(len(part), dtype=np.int64)
    codes = encode_part(part, splan) + 1
    return mixed_radix([codes[:, j] for j in range(codes.shape[1])],
                       [c + 1 for c in splan.cards], len(part))


def _pram_counts(part: pd.DataFrame, columns: tuple, cats: list, splan: Any) -> list[pd.Series]:
    st = _strata_code(part, splan)
    out = []
    for c, cat in zip(columns, cats):
        codes = _column_codes(part[c], cat)
        ok = codes >= 0
        out.append(pd.DataFrame({"s": st[ok], "c": codes[ok]}).groupby(["s", "c"]).size())
    return out


def _pram_kernel(part: pd.DataFrame, columns: tuple, cats: list, splan: Any,
                 strata_keys: np.ndarray, cums: list, seed: int, offsets: list[int],
                 partition_info: dict | None = None) -> pd.DataFrame:
    start, n = offsets[(partition_info or {}).get("number", 0)], offsets[-1]
    st = _strata_code(part, splan)
    sidx = np.searchsorted(strata_keys, st)
    out = {}
    for j, (c, cat, cum) in enumerate(zip(columns, cats, cums)):
        s = part[c]
        codes = _column_codes(s, cat)
        # the in-memory path draws one uniform per record, column after column, from one stream
        u = record_stream(seed, j * n + start).random(len(codes))
        new = _draw(codes, sidx, cum, u) if len(codes) else codes
        out[c] = codes_to_column(new, codes >= 0, cat, s)
    return pd.DataFrame(out, index=part.index)


def _pram_stats(old: pd.DataFrame, new: pd.DataFrame, cats: list) -> dict[str, Any]:
    changed, after = {}, {}
    for c, cat in zip(new.columns, cats):
        a, b = _column_codes(old[c], cat), _column_codes(new[c], cat)
        changed[c] = int((a != b).sum())
        after[c] = {str(i): int(v) for i, v in enumerate(np.bincount(b[b >= 0],
                                                                         minlength=len(cat)))}
    return {"changed": changed, "after": after}


def _pram_categories(t: Pram, ddf: Any, progress: Any) -> tuple[list[pd.Index], list[int]]:
    plan = scan(ddf, list(t.columns), what="pram", progress=progress)
    out = []
    for j, c in enumerate(t.columns):
        cat = plan.categories[j]
        if not plan.categorical[j]:
            dt = ddf._meta[c].dtype
            if (pd.api.types.is_float_dtype(dt) or pd.api.types.is_integer_dtype(dt)) and \
                    len(cat) > MAX_NUMERIC_CATEGORIES:
                raise TreatmentError(
                    f"pram: column {c!r} is numeric with {len(cat)} distinct values; PRAM is for "
                    "categorical variables: recode it into a few categories first "
                    "(e.g. global_recode with breaks) or use add_noise/microaggregation")
            cat = pd.Index(pd.factorize(cat, sort=True)[1])  # as the in-memory kernel
        if len(cat) > MAX_CATEGORIES:
            raise TreatmentError(f"pram: column {c!r} has {len(cat)} categories (more than "
                                 f"{MAX_CATEGORIES}); recode it first")
        out.append(cat)
    return out, plan.lengths


def _stratum_labels(keys: np.ndarray, splan: Any) -> list[str]:
    if splan is None:
        return ["all"]
    cards = [c + 1 for c in splan.cards]
    labels = []
    for code in keys:
        parts = []
        for j in range(len(cards) - 1, -1, -1):
            code, r = divmod(int(code), cards[j])
            parts.append("nan" if r == 0 else str(splan.categories[j][r - 1]))
        labels.append(" / ".join(reversed(parts)))
    return labels


@distributed(Pram)
def _pram(t: Pram, ddf: Any, roles: Roles, seed: int, progress: Any) -> DistributedResult:
    import dask

    strata = list(t.strata) + [c for c in t.given if c not in t.strata]
    require_columns(ddf._meta, list(t.columns) + strata, "pram")
    cats, lengths = _pram_categories(t, ddf, progress)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64).tolist()
    splan = scan(ddf, strata, what="strata", progress=progress) if strata else None
    if splan is not None:
        radix([c + 1 for c in splan.cards], "strata")
    cols = list(t.columns) + strata
    counts = compute(*[dask.delayed(_pram_counts)(p, t.columns, cats, splan)
                       for p in ddf[cols].to_delayed()], progress=progress)
    user = _split_matrix(t.matrix, t.columns)
    tables = [pd.concat([c[j] for c in counts]).groupby(level=[0, 1]).sum()
              for j in range(len(t.columns))]
    skeys = np.unique(np.concatenate([tb.index.get_level_values(0).to_numpy(dtype=np.int64)
                                      for tb in tables] + [np.zeros(0, dtype=np.int64)]))
    for c, tb in zip(t.columns, tables):  # the in-memory message, first column first
        if len(tb) == 0:
            raise TreatmentError(f"pram: column {c!r} has only missing values")
    labels = _stratum_labels(skeys, splan)
    notes: dict[str, Any] = {"pd": t.pd, "alpha": t.alpha, "invariant": bool(t.invariant),
                             **({"given": list(t.given)} if t.given else {}),
                             **({"bandwidth": t.bandwidth} if t.bandwidth is not None else {}),
                             "matrices": {}, "changed": {}, "frequencies_before": {},
                             "frequencies_after": {}}
    cums = []
    for c, cat, tb in zip(t.columns, cats, tables):
        k = len(cat)
        base = column_base(user.get(c), list(cat), c, t.pd, t.bandwidth)
        freq = np.zeros((len(skeys), k))
        si = np.searchsorted(skeys, tb.index.get_level_values(0).to_numpy(dtype=np.int64))
        freq[si, tb.index.get_level_values(1).to_numpy(dtype=np.int64)] = tb.to_numpy()
        mats = np.empty((len(skeys), k, k))
        for st in range(len(skeys)):
            mats[st] = stratum_matrix(base, freq[st], t.alpha, t.invariant, t.bandwidth,
                                      bool(t.given))
        cum = np.cumsum(mats, axis=2)
        cum /= cum[:, :, -1:]
        cums.append(cum)
        lab = [_label(x) for x in cat]
        notes["matrices"][c] = {labels[st]: {"categories": lab, "matrix": mats[st].tolist()}
                                for st in range(len(skeys))}
        notes["frequencies_before"][c] = dict(zip(lab, freq.sum(axis=0).astype(np.int64).tolist()))
    new = map_columns(ddf[cols], list(cols), _pram_kernel, t.columns, cats, splan, skeys, cums,
                      int(seed), offsets, progress=progress, partition_info=True)
    stats = partition_stats(lambda a, b: _pram_stats(a, b, cats), ddf[list(t.columns)], new,
                            progress=progress)
    for c, cat in zip(t.columns, cats):
        lab = [_label(x) for x in cat]
        notes["changed"][c] = int(stats["changed"][c])
        notes["frequencies_after"][c] = {lab[i]: int(stats["after"][c].get(str(i), 0))
                                         for i in range(len(cat))}
    return DistributedResult(replace_columns(ddf, new), notes=notes)


# ---------------------------------------------------------------------------------- noise
def _moments1(part: pd.DataFrame, columns: tuple) -> tuple[list, DomainFacts, int]:
    x = part[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    inf = np.isinf(x).any(axis=0)
    if inf.any():
        raise TreatmentError(f"add_noise: column(s) {[c for c, b in zip(columns, inf) if b]} "
                             "have infinite values")
    return column_parts(x), domain_facts(x), len(x)


def _moments2(part: pd.DataFrame, columns: tuple, mean: np.ndarray, cross: bool) -> dict:
    x = part[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    return pair_parts(x, mean, cross=cross)


#: prefix of the per-record flags "reflected at a bound" the noise kernel returns for the notes
_REFLECTED = "__sdc_reflected__"


def stream_states(seed: int, lengths: list[int], p: int) -> list[dict[str, Any]]:
    """The state of ``numpy.random.default_rng(seed)`` at the first record of every partition
    when the in-memory path draws ``standard_normal((n, p))`` (one row of ``p`` per record, in
    record order): drawn once on the client, partition after partition (the normal draws use a
    variable number of 64-bit words, so the states cannot be skipped to).

    Missing values: not applicable (the draws depend on the numbers of records only; a missing
    value gets its draw and stays missing, as in memory).

    >>> st = stream_states(5, [2, 3], 1)
    >>> g = np.random.Generator(np.random.PCG64()); g.bit_generator.state = st[1]
    >>> bool((g.standard_normal((3, 1)) == np.random.default_rng(5).standard_normal((5, 1))[2:]).all())
    True
    """
    rng = np.random.default_rng(int(seed))
    out = []
    for n in lengths:
        out.append(rng.bit_generator.state)
        for a in range(0, int(n), 1 << 20):  # in slices: bounded memory on the client
            rng.standard_normal((min(1 << 20, int(n) - a), p))
    return out


def _noise_kernel(part: pd.DataFrame, columns: tuple, method: str, noise: float,
                  sd: np.ndarray, cov: np.ndarray, mean: np.ndarray, states: list,
                  bounds: Any = None, partition_info: dict | None = None) -> pd.DataFrame:
    bg = np.random.PCG64()
    bg.state = states[(partition_info or {}).get("number", 0)]
    rng = np.random.Generator(bg)
    x = part[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    n, p = x.shape
    if method in ("additive", "additive0"):
        z = x + rng.standard_normal((n, p)) * (noise * sd)
    else:
        z = x + correlated_draws(rng, (noise ** 2) * cov, n)
        if method == "correlated2":
            c = 1.0 / np.sqrt(1.0 + noise ** 2)
            z = c * z + (1.0 - c) * mean
    z, reflected = bound_block(x, z, method, bounds)
    out = {c: z[:, j] for j, c in enumerate(columns)}
    if bounds is not None:
        out.update({_REFLECTED + c: reflected[:, j] for j, c in enumerate(columns)})
    return pd.DataFrame(out, index=part.index)


def _noise_stats(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {"changed": {}, "spread": {}, "negative": {}, "not_whole": {},
                           "bounded": {}}
    for c in old.columns:
        x = old[c].to_numpy(dtype=np.float64, na_value=np.nan)
        z = new[c].to_numpy(dtype=np.float64)
        d = z - x
        ch = ~np.isnan(x) & (d != 0)
        out["changed"][c] = int(ch.sum())
        out["spread"][c] = [spread_parts(d[ch])]
        neg, frac = domain_counts(x[:, None], z[:, None])
        out["negative"][c], out["not_whole"][c] = int(neg[0]), int(frac[0])
        if _REFLECTED + c in new.columns:
            out["bounded"][c] = int(new[_REFLECTED + c].sum())
    return out


@distributed(AddNoise)
def _noise(t: AddNoise, ddf: Any, roles: Roles, seed: int, progress: Any) -> DistributedResult:
    import dask

    if t.method not in ("additive", "additive0", "correlated", "correlated2"):
        raise not_distributable(t, f"method {t.method!r} needs the whole file (outlier "
                                   "detection or blocks of records); use additive, additive0, "
                                   "correlated or correlated2 noise")
    cols = tuple(t.columns)
    require_columns(ddf._meta, list(cols), "add_noise")
    numeric_block(ddf._meta_nonempty, cols, "add_noise", min_sd=False)
    parts = ddf[list(cols)].to_delayed()
    first = compute(*[dask.delayed(_moments1)(p, cols) for p in parts], progress=progress)
    counts, mean = column_means(f for f, _, _ in first)
    lengths = [n for _, _, n in first]
    empty = tuple(c for c, k in zip(cols, counts) if k == 0)
    notes: dict[str, Any] = {"method": t.method, "noise": t.noise, "all_missing": list(empty)}
    if empty:  # as in memory: passed through unchanged, with a warning
        warnings.warn(f"add_noise: column(s) {list(empty)} have only missing values; passed "
                      "through unchanged", SdcWarning, stacklevel=user_stacklevel())
    keep = [j for j, k in enumerate(counts) if k > 0]
    if not keep:
        notes.update(sd_spec={}, sd_realised={}, changed={}, bounded={}, domain={})
        return DistributedResult(ddf, notes=notes)
    facts = first[0][1]
    for _, f, _ in first[1:]:
        facts = facts.merge(f)
    facts = DomainFacts(facts.lo[keep], facts.hi[keep], facts.whole[keep])
    if len(keep) < len(cols):  # the moments of the observed columns only
        first = [([f[j] for j in keep], None, n) for f, _, n in first]
        cols, mean = tuple(cols[j] for j in keep), mean[keep]
    constant = [c for j, c in enumerate(cols) if facts.lo[j] == facts.hi[j]]
    if constant:
        raise TreatmentError(f"add_noise: column {constant[0]!r} is constant (standard "
                             "deviation 0); nothing to perturb")
    check_within(cols, facts, t.bounds)
    correlated = t.method in ("correlated", "correlated2")
    missing = int(counts[keep].sum()) < sum(lengths) * len(keep)
    parts = ddf[list(cols)].to_delayed()
    second = compute(*[dask.delayed(_moments2)(p, cols, mean, correlated) for p in parts],
                     progress=progress)
    sd, cov, info = noise_moments([f for f, _, _ in first], list(second), correlated, missing)
    if t.method in ("additive", "additive0"):
        sd_spec = t.noise * sd
    else:
        _warn_covariance(info, cols)
        notes["covariance_undefined_pairs"] = [[cols[i], cols[j]] for i, j in
                                               info["covariance_undefined_pairs"]]
        notes["covariance_repaired"] = info["covariance_repaired"]
        sd_spec = t.noise * np.sqrt(np.diag(cov))
        if t.method == "correlated2":
            c = 1.0 / np.sqrt(1.0 + t.noise ** 2)
            notes["c"] = c
            sd_spec = np.sqrt(np.diag(cov) * 2 * (1 - c))
    meta = {c: pd.Series(dtype="float64") for c in cols}
    if t.bounds is not None:
        meta.update({_REFLECTED + c: pd.Series(dtype="bool") for c in cols})
    new = map_columns(ddf, list(cols), _noise_kernel, cols, t.method, float(t.noise), sd, cov,
                      mean, stream_states(int(seed), lengths, len(cols)), t.bounds,
                      progress=progress, partition_info=True, meta=pd.DataFrame(meta))
    st = partition_stats(_noise_stats, ddf[list(cols)], new, progress=progress)
    notes["bounded"] = ({c: int(st["bounded"].get(c, 0)) for c in cols}
                        if t.bounds is not None else {})
    notes["domain"] = warn_domain_counts(
        cols, facts, np.array([st["negative"][c] for c in cols]),
        np.array([st["not_whole"][c] for c in cols]), t.bounds, t.warn_domain, stacklevel=5)
    notes["sd_spec"] = {c: float(sd_spec[j]) for j, c in enumerate(cols)}
    notes["sd_realised"] = {c: realised_sd(st["spread"][c]) for c in cols}
    notes["changed"] = {c: int(st["changed"][c]) for c in cols}
    return DistributedResult(replace_columns(ddf, new[list(cols)]), notes=notes)
