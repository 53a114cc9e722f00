"""info_loss options of sdcMicro's infoLoss: custom_metric, probs, quantvals, apply_quantvals,
exclude_zeros (hand-computed values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import ParameterError
from sdcsession.utility import info_loss


def _pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    o = pd.DataFrame({"reg": list("aaaabbc"), "sex": list("mfmfmfm")})
    s = pd.DataFrame({"reg": list("aaabbbb"), "sex": list("mfmfmfm")})
    return o, s


def test_custom_metric_is_summarised_like_the_built_ins():
    o, s = _pair()
    r = info_loss(o, s, ["reg"], custom_metric={"met2": lambda x, y: np.sqrt(x ** 2 + y ** 2)},
                  margins=False)
    t = r.tables[0]
    # cells a: 4 -> 3, b: 2 -> 4, c: 1 -> 0
    assert t.cells["met2"].tolist() == pytest.approx([5.0, np.sqrt(20), 1.0])
    assert t.measures.loc["Max", "met2"] == pytest.approx(5.0)
    assert t.measures.loc["Mean", "met2"] == pytest.approx((5 + np.sqrt(20) + 1) / 3)
    assert "mean_met2" in r.summary.columns
    # a single function is named custom_1, a list custom_1, custom_2
    r2 = info_loss(o, s, ["reg"], custom_metric=[lambda x, y: x - y, lambda x, y: x * 0])
    assert {"custom_1", "custom_2"} <= set(r2.tables[0].measures.columns)


def test_custom_metric_errors_are_named():
    o, s = _pair()
    with pytest.raises(ParameterError, match=r"custom_metric\['met2'\] raised NameError"):
        info_loss(o, s, ["reg"], custom_metric={"met2": lambda x, y: np.sqrt(x ** 2 + z ** 2)})  # noqa: F821
    with pytest.raises(ParameterError, match="one number per cell"):
        info_loss(o, s, ["reg"], custom_metric=lambda x, y: 1.0)
    with pytest.raises(ParameterError, match="clashes"):
        info_loss(o, s, ["reg"], custom_metric={"abs": lambda x, y: x})
    with pytest.raises(ParameterError, match="custom_metric"):
        info_loss(o, s, ["reg"], custom_metric="lambda x, y: x")  # text is never evaluated


def test_probs_choose_the_quantile_rows():
    o, s = _pair()
    r = info_loss(o, s, ["reg"], probs=[0.25, 0.5, 0.75], margins=False)
    m = r.tables[0].measures
    assert m.index.tolist() == ["25%", "Mean", "Median", "75%"]
    # abs: 1, 2, 1 -> quantiles (type 7) 1, 1, 1.5; mean 4/3
    assert m["abs"].tolist() == pytest.approx([1.0, 4 / 3, 1.0, 1.5])
    with pytest.raises(ParameterError, match="probs"):
        info_loss(o, s, ["reg"], probs=2)
    with pytest.raises(ParameterError, match="probs"):
        info_loss(o, s, ["reg"], probs=[])


def test_quantvals_and_apply_quantvals():
    o, s = _pair()
    r = info_loss(o, s, ["reg"], margins=False, quantvals=[0, 0.5, 1, 10],
                  apply_quantvals=["abs", "rel_abs"])
    cum = r.tables[0].cumulative
    # abs 1, 2, 1 -> [0,0.5]: 0, (0.5,1]: 2, (1,10]: 1
    assert cum["abs"]["cat"].tolist() == ["[0,0.5]", "[0,1]", "[0,10]"]
    assert cum["abs"]["cnt"].tolist() == [0, 2, 3]
    # rel_abs 1/4, 1, 1 -> 1, 3, 3
    assert cum["rel_abs"]["cnt"].tolist() == [1, 3, 3]
    # abs_sqrt not grouped: its distinct values
    assert len(cum["abs_sqrt"]) == 3
    with pytest.raises(ParameterError, match="quantvals"):
        info_loss(o, s, ["reg"], quantvals=[-1])
    with pytest.raises(ParameterError, match="apply_quantvals"):
        info_loss(o, s, ["reg"], apply_quantvals=1)
    with pytest.raises(ParameterError, match="apply_quantvals"):
        info_loss(o, s, ["reg"], apply_quantvals=["nope"])


def test_exclude_zeros_drops_cells_empty_after_swapping():
    o, s = _pair()
    r = info_loss(o, s, ["reg"], margins=False, exclude_zeros=True)
    t = r.tables[0]
    assert t.cells["reg"].tolist() == ["a", "b"]
    assert t.false_zero == 0
    assert info_loss(o, s, ["reg"], margins=False).tables[0].false_zero == 1
    with pytest.raises(ParameterError, match="exclude_zeros"):
        info_loss(o, s, ["reg"], exclude_zeros="YES")
