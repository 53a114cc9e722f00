"""Projects: the whole tree saved and reopened (in a fresh process) bit for bit, lazily; data
that differ from the recorded fingerprint refused with what differs; files never overwritten
without overwrite=True; damaged or hostile files refused with a RecipeError naming the problem."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import DataFileError, ParameterError, RecipeError
from sdcsession.session.projects import archive, store
from sdcsession.session.projects.archive import read_archive, write_archive

KEYS = ["region", "sex", "age5"]
ROOT = Path(__file__).resolve().parents[2]

#: a digest of a frame's exact bytes: values (raw memory of numeric columns; codes and categories
#: of categorical ones; text otherwise), dtypes and index (used in both processes)
DIGEST = '''
import hashlib, numpy as np, pandas as pd
def digest(df):
    h = hashlib.sha256()
    h.update(repr([(str(c), str(t)) for c, t in df.dtypes.items()]).encode())
    h.update(repr(df.index.tolist()).encode())
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            h.update(repr(list(s.cat.categories)).encode() + repr(s.cat.ordered).encode())
            h.update(np.ascontiguousarray(s.cat.codes.to_numpy()).tobytes())
        elif isinstance(s.dtype, np.dtype) and s.dtype.kind in "biufcmM":
            h.update(np.ascontiguousarray(s.to_numpy()).tobytes())
        else:
            h.update(repr(s.tolist()).encode())
    return h.hexdigest()
'''
_ns: dict = {}
exec(DIGEST, _ns)  # noqa: S102 - the test's own helper source, shared with the subprocess
digest = _ns["digest"]


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(250, seed=3)


def three_branches(df: pd.DataFrame) -> sdc.SdcSession:
    """main: PRAM, noise, local suppression; swap: record swap then top code; recode: a
    global recode, grouping, then an undone step (a redo list)."""
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], pram=["water"], weight="w",
                       household="hid", seed=7)
    swap = s.branch("swap")
    rec = s.branch("recode")
    s.pram(["water"]).add_noise(["income"], noise=0.2).local_suppression(k=3)
    swap.record_swap(hierarchy=["region"], similar=["hhsize"], swaprate=0.1)
    swap.top_bottom_code("income", 40000, 40000)
    rec.global_recode("expend", [-1, 20000, 40000, 1e9])
    rec.group_categories("age5", {"60+": ["60-64", "65-69", "70-74", "75-79", "80-84",
                                          "85-89", "90+"]})
    rec.local_suppression(k=2).undo()
    s.watch = ["expected_reidentifications"]
    s.kept_branches = [swap, rec]  # scenarios are the live sessions of the tree
    return s


@pytest.fixture(scope="module")
def session(survey):
    return three_branches(survey)


def _reseal(src: Path, dst: Path, edit) -> Path:
    """Rewrite the project ``src`` as ``dst`` with its manifest changed by ``edit(dict)``."""
    members = read_archive(src, {"project.json": 2**30, "data/original.parquet": 2**34})
    m = json.loads(members.pop("project.json"))
    edit(m)
    out = [("project.json", json.dumps(m).encode(), True)]
    out += [(k, v, False) for k, v in members.items()]
    return write_archive(dst, out)


# ----------------------------------------------------------------------------- round trip
@pytest.mark.parametrize("embedded", [True, False])
def test_round_trip_in_a_fresh_process(session, survey, tmp_path, embedded):
    path = session.save_project(tmp_path / "survey.sdcproj", include_data=embedded)
    data_file = tmp_path / "original.parquet"
    survey.to_parquet(data_file)
    code = DIGEST + f'''
import json, sys, sdcsession as sdc
data = None if {embedded!r} else pd.read_parquet({str(data_file)!r})
s = sdc.open_project({str(path)!r}, data=data)
lazy = [st.state.ready for st in s.steps]
out = {{"current": s.name, "head": s.head.id, "lazy": lazy,
       "scenarios": {{n: [x.head.id, [r.id for r in x._redo], x.watch]
                     for n, x in s.scenarios.items()}},
       "steps": [[st.id, st.parent.id if st.parent else None, st.seed, st.notes, st.created,
                  st.seconds, digest(st.state.data)] for st in s.steps]}}
print(json.dumps(out))
'''
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["current"] == "main" and got["head"] == session.head.id
    assert got["lazy"] == [True] + [False] * (len(session.steps) - 1)  # nothing replayed at open
    want = {n: [x.head.id, [r.id for r in x._redo], x.watch]
            for n, x in session.scenarios.items()}
    assert got["scenarios"] == want
    assert set(want) == {"main", "swap", "recode"} and want["recode"][1] != []
    steps = [[st.id, st.parent.id if st.parent else None, st.seed,
              json.loads(json.dumps(st.notes)), st.created, st.seconds, digest(st.state.data)]
             for st in session.steps]
    assert got["steps"] == steps  # same tree, seeds, notes and data, bit for bit
    types = {st.treatment.type for st in session.steps if st.treatment}
    assert {"pram", "add_noise", "local_suppression", "record_swap"} <= types


def test_lazy_replay_only_the_path_asked_for(session, survey, tmp_path):
    path = session.save_project(tmp_path / "p.sdcproj")
    s2 = sdc.open_project(path, data=survey)
    assert [st.state.ready for st in s2.steps] == [True] + [False] * (len(s2.steps) - 1)
    assert s2.roles == session.roles and s2.head.notes == session.head.notes  # no replay needed
    swap = s2.scenarios["swap"]
    assert digest(swap.data) == digest(session.scenarios["swap"].data)
    ready = {st.id for st in s2.steps if st.state.ready}
    assert ready == {st.id for st in swap.head.path()}
    assert digest(s2.data) == digest(session.data)
    assert s2.risk.global_risk == session.risk.global_risk


def test_undo_redo_and_new_steps_after_open(session, survey, tmp_path):
    s2 = sdc.open_project(session.save_project(tmp_path / "p.sdcproj"), data=survey)
    rec = s2.scenarios["recode"]
    rec.redo()
    assert digest(rec.data) == digest(session.steps[rec.head.id].state.data)
    s2.undo().add_noise(["expend"])
    ref = sdc.SdcSession.from_recipe(survey, s2.to_recipe())
    assert digest(ref.data) == digest(s2.data)


def test_save_open_save_same_bytes(session, survey, tmp_path):
    a = session.save_project(tmp_path / "a.sdcproj", include_data=True)
    b = sdc.open_project(a).save_project(tmp_path / "b.sdcproj", include_data=True)
    assert a.read_bytes() == b.read_bytes()


# ----------------------------------------------------------------------------- data=
def test_data_from_a_modified_file_is_refused(session, survey, tmp_path):
    path = session.save_project(tmp_path / "p.sdcproj")
    csv = tmp_path / "survey.parquet"
    changed = survey.copy()
    changed.loc[7, "income"] = changed.loc[7, "income"] + 1
    changed.to_parquet(csv)
    with pytest.raises(RecipeError, match=r"values differ in column\(s\) \['income'\]"):
        sdc.open_project(path, data=pd.read_parquet(csv))
    with pytest.raises(RecipeError, match=r"values differ in column\(s\) \['income'\]"):
        sdc.open_project(path, data=csv)  # the file itself
    survey.to_parquet(tmp_path / "same.parquet")
    assert digest(sdc.open_project(path, data=tmp_path / "same.parquet").data) == \
        digest(session.data)
    with pytest.raises(RecipeError, match=r"columns missing: \['savings'\]"):
        sdc.open_project(path, data=survey.drop(columns="savings"))
    with pytest.raises(RecipeError, match="dtype of 'hhsize'"):
        sdc.open_project(path, data=survey.astype({"hhsize": "float64"}))
    with pytest.raises(RecipeError, match="categories of 'sex'"):
        sdc.open_project(path, data=survey.assign(
            sex=survey["sex"].cat.reorder_categories(survey["sex"].cat.categories[::-1])))
    n = len(survey)
    with pytest.raises(RecipeError, match=f"n_records: data {n - 1}, project {n}"):
        sdc.open_project(path, data=survey.iloc[:-1])
    with pytest.raises(RecipeError, match="index"):
        sdc.open_project(path, data=survey.set_axis(survey.index[::-1]))
    with pytest.raises(ParameterError, match="data"):
        sdc.open_project(path, data=[1, 2])


def test_source_file_and_no_data(survey, tmp_path):
    csv = tmp_path / "survey.csv"
    survey.to_csv(csv, index=False)
    df = sdc.read_data(csv)
    s = sdc.SdcSession(df, keys=KEYS, seed=1).recode("region", {"R01": "R02"})
    path = s.save_project(tmp_path / "p.sdcproj")
    s2 = sdc.open_project(path)  # the recorded source, read again and checked
    assert digest(s2.data) == digest(s.data)
    with pytest.raises(DataFileError, match="source data"):
        s.save_project(csv, overwrite=True)  # never over the source data
    csv.unlink()
    with pytest.raises(RecipeError, match="no longer exist"):
        sdc.open_project(path)
    plain = sdc.SdcSession(survey, keys=KEYS, seed=1)
    p2 = plain.save_project(tmp_path / "plain.sdcproj")
    with pytest.raises(RecipeError, match="pass data="):
        sdc.open_project(p2)


def test_overwrite_only_when_asked(session, tmp_path):
    path = session.save_project(tmp_path / "p.sdcproj")
    before = path.read_bytes()
    with pytest.raises(DataFileError, match="overwrite=True"):
        session.save_project(path)
    assert path.read_bytes() == before
    with pytest.raises(ParameterError, match="overwrite"):
        session.save_project(path, overwrite="yes")
    with pytest.raises(ParameterError, match="include_data"):
        session.save_project(tmp_path / "q.sdcproj", include_data=1)
    session.save_project(path, overwrite=True, include_data=True)
    assert path.read_bytes() != before
    assert [p.name for p in tmp_path.iterdir()] == ["p.sdcproj"]  # no temporary file left
    with pytest.raises(DataFileError, match="directory"):
        session.save_project(tmp_path)


def test_flags_take_numpy_bools_like_every_flag(session, survey, tmp_path):
    """include_data, overwrite and apply_to's strict take numpy bools as every other flag of
    the package does (check_bool), and still refuse 0, 1 and text."""
    path = session.save_project(tmp_path / "p.sdcproj", include_data=np.True_,
                                overwrite=np.False_)
    with pytest.raises(DataFileError, match="overwrite=True"):
        session.save_project(path, overwrite=np.False_)
    assert session.save_project(path, overwrite=np.True_) == path
    opened = sdc.open_project(path, data=survey)
    new, drift = opened.apply_to(survey, strict=np.True_)
    assert new.data.equals(opened.data)  # the same plan on the same data
    for bad in ("no", 1, 0):
        with pytest.raises(ParameterError, match="strict: expected True or False"):
            opened.apply_to(survey, strict=bad)


def test_include_data_refuses_what_parquet_cannot_keep(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "x"], "b": [1, "two", 3.0]})
    s = sdc.SdcSession(df, keys=["a"], seed=1)
    with pytest.raises(RecipeError, match="include_data"):
        s.save_project(tmp_path / "p.sdcproj", include_data=True)
    assert not (tmp_path / "p.sdcproj").exists()
    s.save_project(tmp_path / "p.sdcproj")  # without the copy it saves
    assert sdc.open_project(tmp_path / "p.sdcproj", data=df).original.equals(df)


# ----------------------------------------------------------------------------- damaged files
def test_truncated_and_flipped_files(session, tmp_path):
    path = session.save_project(tmp_path / "p.sdcproj", include_data=True)
    raw = path.read_bytes()
    bad = tmp_path / "bad.sdcproj"
    for cut in (0, 10, len(raw) // 2, len(raw) - 1):
        bad.write_bytes(raw[:cut])
        with pytest.raises(RecipeError):
            sdc.open_project(bad)
    rng = np.random.default_rng(0)
    for pos in [0, 14, 30, len(raw) - 70, len(raw) - 1, *rng.integers(0, len(raw), 10)]:
        flipped = bytearray(raw)
        flipped[pos] ^= 1 << int(rng.integers(0, 8))
        bad.write_bytes(bytes(flipped))
        with pytest.raises(RecipeError):
            sdc.open_project(bad)
    bad.write_bytes(b"not a project at all, longer than a ZIP end record")
    with pytest.raises(RecipeError, match="not a project file"):
        sdc.open_project(bad)
    with pytest.raises(RecipeError, match="cannot read"):
        sdc.open_project(tmp_path / "missing.sdcproj")


def test_format_number_and_unknown_types(session, survey, tmp_path):
    src = session.save_project(tmp_path / "p.sdcproj")

    def check(name, edit, match):
        with pytest.raises(RecipeError, match=match):
            sdc.open_project(_reseal(src, tmp_path / name, edit), data=survey)

    check("v2", lambda m: m.update(format_version=2), "format_version 2 is newer")
    check("v0", lambda m: m.update(format_version=0), "format_version: expected 1 to 1")
    check("fmt", lambda m: m.update(format="pickle"), "format: expected 'sdcsession-project'")
    check("type", lambda m: m["steps"][2]["treatment"].update(type="os.system"),
          r"step #2: unknown treatment type 'os.system'")
    check("param", lambda m: m["steps"][1]["treatment"].update(evil="__import__('os')"),
          r"step #1: treatment 'pram': unknown parameter\(s\) \['evil'\]")
    check("parent", lambda m: m["steps"][3].update(parent=5), r"step #3: parent")
    check("head", lambda m: m["scenarios"][0].update(head=999), "head: expected a step id")
    check("seed", lambda m: m["steps"][1].update(seed=-1), r"step #1: seed")
    check("names", lambda m: m["scenarios"][1].update(name="main"), "given twice")
    check("deep", lambda m: m.update(extra=json.loads("[" * 100 + "]" * 100)), "nested")
    cat = next(i for i, c in enumerate(json.loads(read_archive(src, {"project.json": 2**30})[
        "project.json"])["data"]["columns"]) if "categories" in c)
    for bad in (1, "no", True, {"a": 1}):  # not a list: refused, not a TypeError on compare
        check(f"cats{bad!s}", lambda m, bad=bad: m["data"]["columns"][cat].update(categories=bad),
              r"data.columns: expected a list of \{name, dtype\} \(categories: a list\)")
    # a wrong recorded fingerprint: the replay of that step is refused, never other data
    fp = "sha256:" + "0" * 64
    s2 = sdc.open_project(_reseal(src, tmp_path / "fp", lambda m: m["steps"][1].update(
        fingerprint=fp)), data=survey)
    with pytest.raises(RecipeError, match=r"step #1 pram: the replay does not reproduce"):
        _ = s2.data
    assert not s2.state.ready  # still pending; nothing half-made


def test_bounded_reading(session, tmp_path, monkeypatch):
    src = session.save_project(tmp_path / "p.sdcproj")
    bomb = write_archive(tmp_path / "bomb.sdcproj", [("project.json", b" " * 2_000_000, True)])
    with pytest.raises(RecipeError, match="expands more than 200 times"):
        sdc.open_project(bomb)
    monkeypatch.setattr(store, "MAX_MANIFEST_BYTES", 1000)
    with pytest.raises(RecipeError, match="more than the 1000 allowed"):
        sdc.open_project(src)
    monkeypatch.undo()
    extra = write_archive(tmp_path / "extra.sdcproj", [
        ("project.json", b"{}", True), ("evil.py", b"import os", True)])
    with pytest.raises(RecipeError, match=r"unexpected member\(s\) \['evil.py'\]"):
        sdc.open_project(extra)
    # a zip with another comment is not a project
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("project.json", "{}")
        z.comment = b"hello"
    with pytest.raises(RecipeError, match="no 'sdcsession-project' checksum"):
        sdc.open_project(plain)
    assert archive.MAX_RATIO == 200


def test_members_are_plain_json_and_parquet(session, survey, tmp_path):
    path = session.save_project(tmp_path / "p.sdcproj", include_data=True)
    with zipfile.ZipFile(path) as z:
        assert z.namelist() == ["project.json", "data/original.parquet"]
        m = json.loads(z.read("project.json"))
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in z.infolist())
    assert m["format"] == "sdcsession-project" and m["format_version"] == 1
    assert len(m["steps"]) == len(session.steps)
    assert [sc["name"] for sc in m["scenarios"]] == ["main", "swap", "recode"]
    assert m["data"]["n_records"] == len(survey) and m["data"]["fingerprint"].startswith("sha256:")
    assert "saved" not in json.dumps(m)  # no time of saving: same tree, same bytes


def test_pending_states_are_computed_once_across_threads(session, survey, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    s2 = sdc.open_project(session.save_project(tmp_path / "p.sdcproj"), data=survey)
    assert s2.state.distributed is False and not s2.state.ready  # no replay to tell the engine
    with ThreadPoolExecutor(4) as pool:
        frames = list(pool.map(lambda _: s2.state.data, range(8)))
    assert all(f is frames[0] for f in frames)  # one replay, shared
    assert digest(frames[0]) == digest(session.data)
    assert s2.state.replay is not None and s2.state.replay.label == "step #3 local_suppression"


def test_embedded_data_must_match_the_description(session, survey, tmp_path):
    import io

    src = session.save_project(tmp_path / "p.sdcproj", include_data=True)
    members = read_archive(src, {"project.json": 2**30, "data/original.parquet": 2**34})
    other = io.BytesIO()
    survey.drop(columns="savings").to_parquet(other)
    forged = write_archive(tmp_path / "forged.sdcproj", [
        ("project.json", members["project.json"], True),
        ("data/original.parquet", other.getvalue(), False)])
    with pytest.raises(RecipeError, match="embedded data do not have the columns"):
        sdc.open_project(forged)
    junk = write_archive(tmp_path / "junk.sdcproj", [
        ("project.json", members["project.json"], True),
        ("data/original.parquet", b"PAR1 not parquet PAR1", False)])
    with pytest.raises(RecipeError, match="not a readable Parquet file"):
        sdc.open_project(junk)


def test_a_project_zipped_again_without_the_checksum(session, survey, tmp_path):
    """Unzipped, edited and zipped again by another tool: read with every check but the seal,
    so an edit is judged on its content (here a format number this version does not read)."""
    src = session.save_project(tmp_path / "p.sdcproj", include_data=True)

    def rezip(name, edit=None):
        out = tmp_path / name
        with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
            for info in zin.infolist():
                raw = zin.read(info)
                if edit and info.filename == "project.json":
                    m = json.loads(raw)
                    edit(m)
                    raw = json.dumps(m).encode()
                zout.writestr(info.filename, raw)
        return out

    s2 = sdc.open_project(rezip("same.sdcproj"))
    assert digest(s2.data) == digest(session.data)
    with pytest.raises(RecipeError, match="format_version 7 is newer"):
        sdc.open_project(rezip("v7.sdcproj", lambda m: m.update(format_version=7)))
    with pytest.raises(RecipeError, match="unknown treatment type 'evil'"):
        sdc.open_project(rezip("t.sdcproj", lambda m: m["steps"][1]["treatment"].update(
            type="evil")))
