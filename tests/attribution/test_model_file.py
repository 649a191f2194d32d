"""The attributor's model file holds data only: crafted files run nothing, saved models answer as trained."""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
import zipfile

import joblib
import numpy as np
import pytest

from litlens.attribution.cpu import load_model
from litlens.attribution.model_file import (
    FORMAT,
    Isotonic,
    TreeEnsemble,
    read_model_file,
    trees_from_sklearn,
)
from litlens.attribution.ranker import SpeakerRanker
from litlens.errors import InputFileError
from litlens.services.attribution import default_model_path


class _CreatesAFile:
    """Unpickling this object opens (creates) ``path`` for writing."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("how", ["pickle", "joblib", "joblib-compressed"])
def test_model_file_crafted_pickle_is_refused_and_runs_nothing(tmp_path, how):
    marker = tmp_path / "pwned"
    model = tmp_path / "attributor.joblib"
    payload = {"format": "litlens-attributor-5", "passes": _CreatesAFile(str(marker))}
    if how == "pickle":
        model.write_bytes(pickle.dumps(payload))
    else:
        joblib.dump(payload, model, compress=3 if how == "joblib-compressed" else 0)
    with pytest.raises(InputFileError, match="not a LitLens attributor model: it is not a ZIP archive"):
        load_model(model)
    assert not marker.exists()


def test_model_file_crafted_pickle_on_the_command_line_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    model = tmp_path / "attributor.joblib"
    joblib.dump({"format": "litlens-attributor-5", "passes": _CreatesAFile(str(marker))}, model)
    out = subprocess.run(
        [sys.executable, "-m", "litlens.cli", "attribute", "-p", str(tmp_path / "none.litlens"), "--attributor", str(model)],
        capture_output=True, text=True,
    )
    assert out.returncode != 0 and out.stderr.startswith("litlens: error:")
    assert not marker.exists()


def _zip(path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _bundled_members() -> dict[str, bytes]:
    with zipfile.ZipFile(default_model_path()) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_model_file_object_arrays_in_a_member_are_refused_without_unpickling(tmp_path):
    marker = tmp_path / "pwned"
    members = _bundled_members()
    arrays = dict(np.load(io.BytesIO(members["turns.npz"]), allow_pickle=False))
    arrays["value"] = np.array([_CreatesAFile(str(marker))], dtype=object)
    members["turns.npz"] = _npz(**arrays)
    _zip(tmp_path / "m.zip", members)
    with pytest.raises(InputFileError, match="not a LitLens attributor model: a tree member is not a plain numpy archive"):
        load_model(tmp_path / "m.zip")
    assert not marker.exists()


def _manifest_with(**changes) -> dict[str, bytes]:
    members = _bundled_members()
    manifest = json.loads(members["model.json"])
    manifest.update(changes)
    members["model.json"] = json.dumps(manifest).encode()
    return members


@pytest.mark.parametrize(
    ("members", "message"),
    [
        (lambda: {"readme.txt": b"hello"}, "the archive has no model.json"),
        (lambda: {"model.json": b"{not json"}, "model.json is not valid JSON"),
        (lambda: {"model.json": b'{"format": "something-else"}'}, "does not name a LitLens attributor format"),
        (lambda: _manifest_with(format="litlens-attributor-5"), "in format 'litlens-attributor-5', this LitLens reads"),
        (lambda: _manifest_with(base_features=["cue_kind"]), "trained on other features than this LitLens computes"),
        (lambda: _manifest_with(turns="../../etc/passwd"), "names a member '../../etc/passwd' the archive does not hold"),
        (lambda: _manifest_with(calibration={"x": [0.5, 0.1], "y": [0, 1]}), "calibration knots are malformed"),
        (lambda: {**_bundled_members(), "choice-1.txt": b"tree\nnot really\n"}, "not a LightGBM text model"),
    ],
)
def test_model_file_malformed_archives_are_refused_with_the_reason(tmp_path, members, message):
    _zip(tmp_path / "m.zip", members())
    with pytest.raises(InputFileError, match=f"not a LitLens attributor model: .*{message}"):
        load_model(tmp_path / "m.zip")


def test_model_file_tree_that_points_back_is_refused(tmp_path):
    members = _bundled_members()
    arrays = dict(np.load(io.BytesIO(members["pairs-1.npz"]), allow_pickle=False))
    arrays["left"] = arrays["left"].copy()
    arrays["left"][0] = 0  # the root's left child is the root: a walk would never end
    members["pairs-1.npz"] = _npz(**arrays)
    _zip(tmp_path / "m.zip", members)
    with pytest.raises(InputFileError, match="a tree node points outside its tree"):
        load_model(tmp_path / "m.zip")


def test_model_file_bundled_model_is_data_only():
    with zipfile.ZipFile(default_model_path()) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("model.json"))
    assert manifest["format"] == FORMAT
    assert names == {"model.json", "turns.npz", *manifest["learners"]["pairs"]["passes"], *manifest["learners"]["choice"]["passes"]}
    state = read_model_file(default_model_path())
    assert len(state["learners"]["pairs"]["passes"]) == len(state["learners"]["choice"]["passes"]) == 2


# ---- saved models give the numbers of the fitted ones, exactly


@pytest.fixture(scope="module")
def fitted():
    from lightgbm import LGBMRanker
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 6))
    x[rng.random(x.shape) < 0.05] = np.nan  # missing values take each node's learned side
    binary = (np.nan_to_num(x[:, 0]) + np.nan_to_num(x[:, 1]) > 0).astype(int)
    three = np.digitize(np.nan_to_num(x[:, 2]) + 0.3 * np.nan_to_num(x[:, 3]), [-0.5, 0.5])
    pairs = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(x, binary)
    turns = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(x, three)
    groups = np.full(300, 10)
    choice = LGBMRanker(n_estimators=20, min_child_samples=5, verbose=-1).fit(np.nan_to_num(x), binary, group=groups)
    winners = rng.random(500)
    calibration = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(winners, (rng.random(500) < winners).astype(int))
    return x, pairs, turns, choice, calibration


def test_model_file_trees_give_scikit_learns_numbers_exactly(fitted):
    x, pairs, turns, _, _ = fitted
    assert np.array_equal(TreeEnsemble(trees_from_sklearn(pairs)).decision_function(x), pairs.decision_function(x))
    assert np.array_equal(TreeEnsemble(trees_from_sklearn(turns)).predict_proba(x), turns.predict_proba(x))
    assert np.array_equal(TreeEnsemble(trees_from_sklearn(pairs)).predict_proba(x), pairs.predict_proba(x))


def test_model_file_calibration_gives_scikit_learns_numbers_exactly(fitted):
    *_, calibration = fitted
    probe = np.concatenate([np.linspace(-0.2, 1.2, 1001), calibration.X_thresholds_])  # outside, between and on the knots
    assert np.array_equal(Isotonic(calibration.X_thresholds_, calibration.y_thresholds_).predict(probe), calibration.predict(probe))


def test_model_file_saved_ranker_answers_like_the_fitted_one(fitted, tmp_path):
    x, pairs, turns, choice, calibration = fitted
    ranker = SpeakerRanker({"pairs": [pairs, pairs], "choice": [choice, choice]}, turns, calibration, ["A", "B"], {"note": "test"})
    ranker.save(tmp_path / "m.zip")
    state = read_model_file(tmp_path / "m.zip")
    again = {k: v["passes"] for k, v in state["learners"].items()}
    assert np.array_equal(again["pairs"][1].decision_function(x), pairs.decision_function(x))
    assert np.array_equal(again["choice"][0].predict(np.nan_to_num(x), raw_score=True), choice.predict(np.nan_to_num(x), raw_score=True))
    assert np.array_equal(state["turns"].predict_proba(x), turns.predict_proba(x))
    assert np.array_equal(state["calibration"].predict([0.3, 0.7]), calibration.predict([0.3, 0.7]))
    assert state["trained_on"] == ["A", "B"] and state["meta"] == {"note": "test"}
