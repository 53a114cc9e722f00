"""generate_strata: sdcMicro's generateStrata (its test data, drawn here as fixed values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import SdcError
from sdcsession.methods import generate_strata

# sdcMicro's test data: round(runif(30, 1, 4)) with set.seed(123), as a 10 x 3 table (its
# expected strata give the values)
V1 = [2, 3, 2, 4, 4, 1, 3, 4, 3, 2]
V2 = [4, 2, 3, 3, 1, 4, 2, 1, 2, 4]
V3 = [4, 3, 3, 4, 3, 3, 3, 3, 2, 1]


def _frame(missing: bool) -> pd.DataFrame:
    vals = np.array(V1 + V2 + V3, dtype=float)
    if missing:
        vals[[0, 3, 12, 17, 20, 24, 29]] = np.nan  # R's c(1, 4, 13, 18, 21, 25, 30)
    df = pd.DataFrame(vals.reshape(3, 10).T, columns=["Var1", "Var2", "Var3"])
    return df.astype("category")


def test_two_and_three_levels():
    df = _frame(False)
    assert generate_strata(df, ["Var1", "Var2"], "Var12")["Var12"].tolist() == [
        "2-4", "3-2", "2-3", "4-3", "4-1", "1-4", "3-2", "4-1", "3-2", "2-4"]
    assert generate_strata(df, ["Var1", "Var2", "Var3"], "Var123")["Var123"].tolist() == [
        "2-4-4", "3-2-3", "2-3-3", "4-3-4", "4-1-3", "1-4-3", "3-2-3", "4-1-3", "3-2-2", "2-4-1"]


def test_missing_values_are_written_na():
    df = _frame(True)
    assert generate_strata(df, ["Var1", "Var2"], "Var12")["Var12"].tolist() == [
        "NA-4", "3-2", "2-NA", "NA-3", "4-1", "1-4", "3-2", "4-NA", "3-2", "2-4"]
    assert generate_strata(df, ["Var1", "Var2", "Var3"], "Var123")["Var123"].tolist() == [
        "NA-4-NA", "3-2-3", "2-NA-3", "NA-3-4", "4-1-NA", "1-4-3", "3-2-3", "4-NA-3", "3-2-2",
        "2-4-NA"]


def test_original_untouched_and_bad_input():
    df = _frame(False)
    out = generate_strata(df, "Var1", "s", sep="_")
    assert "s" not in df.columns and out["s"].iloc[0] == "2"
    for kw in ({"columns": ["nope"], "name": "x"}, {"columns": ["Var1"], "name": "Var2"},
               {"columns": [], "name": "x"}, {"columns": ["Var1"], "name": ""}):
        with pytest.raises(SdcError):
            generate_strata(df, **kw)


def test_a_name_held_by_two_columns_is_refused():
    """A column name used twice in the data cannot pick one column: a TreatmentError naming it
    (the shared require_columns check), not pandas' reindex ValueError."""
    df = pd.concat([_frame(False), _frame(False)[["Var1"]]], axis=1)
    with pytest.raises(SdcError, match=r"\['Var1'\] are used by more than one column"):
        generate_strata(df, ["Var1", "Var2"], "s")
    assert generate_strata(df, ["Var2", "Var3"], "s")["s"].iloc[0] == "4-4"
