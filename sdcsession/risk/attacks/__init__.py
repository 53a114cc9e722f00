"""Risk measured by attack: singling out, linkability, inference, attribution (TCAP), distance
to closest record — for masked and synthetic files alike.

Modules:

- `singling`: predicates written from the release that isolate one record;
- `linking`: linking two files about the same people through the release;
- `inferring`: guessing a secret column from the nearest release record;
- `attribution`: targeted correct attribution probability and its baseline;
- `distance`: distance to closest record (DCR) and nearest-neighbour distance ratio (NNDR);
- `_common`: the result type, Wilson-score rates, the excess risk, input checks, encoding;
- `_queries`: generation and exact, compiled counting of singling-out predicates;
- `_neighbours`: exact nearest neighbours with the Gower distance.

The three attacks follow Giomi et al. (2023, the anonymeter framework): success on the original
records against success on control records (same population, not in the release), with a
random-guess baseline, and the risk ``(r_train − r_control)/(1 − r_control)`` with a
Wilson-score confidence interval.

Example
-------
>>> import sdcsession as sdc
>>> from sdcsession.risk.attacks import singling_out
>>> df = sdc.datasets.synthetic_survey(2000, seed=1)[["region", "sex", "age", "income"]]
>>> r = singling_out(df.iloc[:1000], df.iloc[:1000], df.iloc[1000:], n_attacks=100, seed=1)
>>> 0 <= r.risk <= 1
True
"""

__all__ = ["singling_out", "linkability", "inference", "tcap", "TCAPResult", "dcr", "DCRResult",
           "AttackResult", "success_rate", "excess_risk"]

#: public name -> the module that defines it (imported on first use, PEP 562)
_LAZY = {
    "AttackResult": "._common",
    "success_rate": "._common",
    "excess_risk": "._common",
    "singling_out": ".singling",
    "linkability": ".linking",
    "inference": ".inferring",
    "tcap": ".attribution",
    "TCAPResult": ".attribution",
    "dcr": ".distance",
    "DCRResult": ".distance",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
