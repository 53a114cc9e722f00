"""The session's options: defaults of record_swap (sdcMicro createSdcObj(options=))."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, SdcWarning


def _df() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n_h = 200
    reg = rng.integers(0, 3, n_h)
    df = pd.DataFrame({"hid": np.repeat(np.arange(n_h), 2), "reg": np.repeat(reg, 2),
                       "hsize": 2, "sex": rng.integers(0, 2, 2 * n_h)})
    df["mun"] = df["reg"] * 10 + np.repeat(rng.integers(0, 3, n_h), 2)
    return df


OPTS = {"k_anonymity": 2, "swaprate": 0.1, "similar": [["hsize"]], "hierarchy": ["reg", "mun"]}


def test_options_give_record_swap_its_parameters_and_match_the_explicit_call():
    a = sdc.SdcSession(_df(), keys=["sex"], household="hid", seed=3, options=OPTS)
    a.record_swap(return_swapped_id=True)
    b = sdc.SdcSession(_df(), keys=["sex"], household="hid", seed=3)
    b.record_swap(hierarchy=["reg", "mun"], similar=[["hsize"]], swaprate=0.1, k_anonymity=2,
                  return_swapped_id=True)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert a.history[-1].treatment == b.history[-1].treatment  # recipes hold the values


def test_missing_required_and_both_given():
    s = sdc.SdcSession(_df(), keys=["sex"], household="hid", seed=3,
                       options={"similar": ["hsize"]})
    head = s.head
    with pytest.raises(ParameterError, match="hierarchy is missing"):
        s.record_swap()
    assert s.head == head
    with pytest.warns(SdcWarning, match="taking the call's values"):
        s.record_swap(hierarchy="reg", similar=["hsize", "mun"], swaprate=0.2)
    assert s.history[-1].treatment.similar == (("hsize", "mun"),)


@pytest.mark.parametrize("options, match", [
    ({"seed": 1}, "seed="), ({"max_size": 10}, "every step"), ({"hierarch": ["a"]}, "unknown"),
    (["hierarchy"], "dict"),
])
def test_bad_options(options, match):
    with pytest.raises(ParameterError, match=match):
        sdc.SdcSession(_df(), keys=["sex"], household="hid", options=options)
