"""JSON Schemas of the treatments (sdcMicro's get_tool_schemas)."""

from __future__ import annotations

import attrs
import pytest

from sdcsession.errors import ParameterError, RecipeError
from sdcsession.methods import Treatment, tool_schemas, treatment_schema, validate_step
from sdcsession.methods.base import TREATMENTS
from sdcsession.methods.microaggregation.treatment import MICROAGGREGATION_METHODS

jsonschema = pytest.importorskip("jsonschema")


def test_every_registered_treatment_has_a_valid_schema():
    schemas = tool_schemas()
    assert [s["name"] for s in schemas] == sorted(TREATMENTS)
    assert len(schemas) >= 5
    for s in schemas:
        jsonschema.Draft202012Validator.check_schema(s["parameters"])
        props = s["parameters"]["properties"]
        fields = {f.alias for f in attrs.fields(TREATMENTS[s["name"]])
                  if f.init and not f.alias.startswith("_")}
        assert set(props) == fields | {"type"}
        assert all("description" in p for p in props.values())
    names = {s["name"] for s in schemas}
    # sdcMicro's tools groupAndRename, localSuppression, microaggregation
    assert {"group_categories", "local_suppression", "microaggregation"} <= names


def test_types_defaults_ranges_and_choices():
    p = treatment_schema("microaggregation")["parameters"]
    assert p["required"] == ["type", "columns"]
    k = p["properties"]["k"]
    assert (k["type"], k["default"], k["minimum"], k["unit"]) == ("integer", 3, 2, "records")
    assert p["properties"]["method"]["enum"] == list(MICROAGGREGATION_METHODS)
    sw = treatment_schema("record_swap")["parameters"]["properties"]
    assert sw["swaprate"]["default"] == 0.05 and sw["swaprate"]["maximum"] == 1
    assert {"type": "null"} in sw["risk_threshold"]["anyOf"]
    with pytest.raises(ParameterError, match="unknown treatment"):
        treatment_schema("dropTable")


@pytest.mark.parametrize("step", [
    {"type": "local_suppression", "k": 3},
    {"type": "microaggregation", "columns": ["income"], "k": 4, "method": "mdav"},
    {"type": "add_noise", "columns": ["income"], "noise": 0.2},
    {"type": "group_categories", "column": "roof", "groups": {"5": ["5", "6"]}},
    {"type": "record_swap", "hierarchy": ["a", "b"], "similar": [["hs"]], "swaprate": 0.1,
     "risk": ["r1", "r2"], "return_swapped_id": True},
    {"type": "pram", "columns": ["x"], "pd": 0.9},
    {"type": "record_swap", "hierarchy": "reg", "similar": "hs"},
])
def test_recipe_steps_validate_against_their_schema(step):
    schema = treatment_schema(step["type"])["parameters"]
    jsonschema.validate(step, schema)
    assert validate_step(step) == []
    t = Treatment.from_dict(step, tagged=False)
    full = t.to_dict()
    jsonschema.validate(full, schema)
    assert validate_step(full) == []


@pytest.mark.parametrize("step, problem", [
    ({"type": "local_suppression", "k": "3"}, "k"),
    ({"type": "pram", "columns": ["x"], "pd": 1.5}, "pd"),
    ({"type": "microaggregation", "columns": ["x"], "method": "nope"}, "method"),
    ({"type": "microaggregation", "k": 3}, "columns: required"),
    ({"type": "add_noise", "columns": ["x"], "level": 1}, "unknown parameter"),
    ({"type": "record_swap", "hierarchy": ["a"], "similar": ["h"], "return_swapped_id": "yes"},
     "return_swapped_id"),
])
def test_bad_steps_are_found_by_both_validators(step, problem):
    problems = validate_step(step)
    assert any(problem in p for p in problems), problems
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(step, treatment_schema(step["type"])["parameters"])


def test_unknown_step_type():
    with pytest.raises(RecipeError):
        validate_step({"type": "dropTable"})
    with pytest.raises(RecipeError):
        validate_step(["local_suppression"])

