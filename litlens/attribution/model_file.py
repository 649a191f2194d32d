"""The CPU attributor's model file: data only, nothing that runs when it is read.

A model file is a ZIP archive holding

- ``model.json``: the format name, the feature lists, which member holds each pass of each
  learner, the isotonic confidence calibration (its knots), the training novels and metadata;
- ``<learner>-<pass>.txt``: a LightGBM model in LightGBM's own text format;
- ``<name>.npz``: a scikit-learn histogram gradient-boosting model as plain arrays (each
  tree's nodes: feature, threshold, where missing values go, children, leaf values), read
  with ``allow_pickle=False``.

Reading a file never unpickles anything, so a crafted file cannot run code; anything that is
not such an archive is refused with "not a LitLens attributor model: …". The trees are
evaluated here with numpy, in the same order and arithmetic as scikit-learn, so a saved model
gives the same numbers as the one that was trained (a test checks this on the sample novel).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "litlens-attributor-6"
MANIFEST = "model.json"
_MAX_MEMBER_BYTES = 500_000_000  # the bundled model unpacks to about 20 MB


class ModelFileError(ValueError):
    """The file is not a model this LitLens can read; the message says why."""


# ---------------------------------------------------------------- tree ensembles


class TreeEnsemble:
    """A scikit-learn ``HistGradientBoostingClassifier``'s trees as arrays, without scikit-learn.

    ``raw(x)`` is scikit-learn's raw prediction: the baseline plus each iteration's tree
    values, added in the same order. ``decision_function`` and ``predict_proba`` follow the
    classifier's methods of those names (binary: the raw score; multiclass: its softmax).
    """

    FIELDS = ("feature", "threshold", "missing_left", "left", "right", "is_leaf", "value")

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.feature = np.asarray(arrays["feature"], dtype=np.int64)
        self.threshold = np.asarray(arrays["threshold"], dtype=np.float64)
        self.missing_left = np.asarray(arrays["missing_left"], dtype=bool)
        self.is_leaf = np.asarray(arrays["is_leaf"], dtype=bool)
        self.value = np.asarray(arrays["value"], dtype=np.float64)
        self.tree_start = np.asarray(arrays["tree_start"], dtype=np.int64)  # first node of each tree
        self.baseline = np.asarray(arrays["baseline"], dtype=np.float64).reshape(-1)
        self.classes_ = np.asarray(arrays["classes"], dtype=np.int64)
        self.n_features = int(np.asarray(arrays["n_features"]).reshape(-1)[0])
        # Children as indexes into the concatenated node arrays.
        owner = np.repeat(np.arange(len(self.tree_start)), np.diff(np.append(self.tree_start, len(self.feature))))
        self.left = np.asarray(arrays["left"], dtype=np.int64) + self.tree_start[owner]
        self.right = np.asarray(arrays["right"], dtype=np.int64) + self.tree_start[owner]
        self._check()

    @property
    def trees_per_iteration(self) -> int:
        return len(self.baseline)

    def _check(self) -> None:
        n = len(self.feature)
        if any(len(getattr(self, f)) != n for f in ("threshold", "missing_left", "left", "right", "is_leaf", "value")):
            raise ModelFileError("tree arrays of different lengths")
        k = self.trees_per_iteration
        starts = self.tree_start
        if k < 1 or not len(starts) or len(starts) % k or starts[0] != 0 or np.any(np.diff(starts) < 1) or starts[-1] >= n:
            raise ModelFileError("tree boundaries do not fit the node arrays")
        if (k == 1 and len(self.classes_) != 2) or (k > 1 and len(self.classes_) != k):
            raise ModelFileError("the classes do not match the number of trees per iteration")
        inner = ~self.is_leaf
        ends = np.append(starts[1:], n)
        end_of = np.repeat(ends, np.diff(np.append(starts, n)))
        idx = np.arange(n)
        # A child comes after its parent and inside its own tree, so every walk ends at a leaf.
        for child in (self.left, self.right):
            if np.any(inner & ((child <= idx) | (child >= end_of))):
                raise ModelFileError("a tree node points outside its tree")
        if np.any(inner & ((self.feature < 0) | (self.feature >= self.n_features))):
            raise ModelFileError("a tree splits on a feature the model does not have")

    def raw(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.n_features:
            raise ValueError(f"expected rows of {self.n_features} features, got an array of shape {x.shape}")
        k = self.trees_per_iteration
        out = np.zeros((len(x), k), dtype=np.float64)
        out += self.baseline
        every_row = np.arange(len(x))
        for t, root in enumerate(self.tree_start):  # iteration by iteration, as scikit-learn adds them
            node = np.full(len(x), root)
            active = every_row[:0] if self.is_leaf[root] else every_row
            while active.size:  # walk down only the rows not yet at a leaf
                at = node[active]
                value = x[active, self.feature[at]]
                go_left = np.where(np.isnan(value), self.missing_left[at], value <= self.threshold[at])
                nxt = np.where(go_left, self.left[at], self.right[at])
                node[active] = nxt
                active = active[~self.is_leaf[nxt]]
            out[:, t % k] += self.value[node]
        return out

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        raw = self.raw(x)
        return raw.ravel() if raw.shape[1] == 1 else raw

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        raw = self.raw(x)
        if raw.shape[1] == 1:
            from scipy.special import expit

            p = expit(raw[:, 0])
            return np.column_stack([1.0 - p, p])
        raw -= raw.max(axis=1, keepdims=True)
        np.exp(raw, out=raw)
        raw /= raw.sum(axis=1, keepdims=True)
        return raw


def trees_from_sklearn(model: Any) -> dict[str, np.ndarray]:
    """The arrays of a fitted ``HistGradientBoostingClassifier`` (numeric features only)."""
    if getattr(model, "is_categorical_", None) is not None and np.any(model.is_categorical_):
        raise ValueError("categorical features cannot be saved in this model format")
    parts: dict[str, list[np.ndarray]] = {f: [] for f in TreeEnsemble.FIELDS}
    starts, total = [], 0
    for iteration in model._predictors:
        for predictor in iteration:
            nodes = predictor.nodes
            starts.append(total)
            total += len(nodes)
            parts["feature"].append(nodes["feature_idx"].astype(np.int64))
            parts["threshold"].append(nodes["num_threshold"].astype(np.float64))
            parts["missing_left"].append(nodes["missing_go_to_left"].astype(np.uint8))
            parts["left"].append(nodes["left"].astype(np.int64))
            parts["right"].append(nodes["right"].astype(np.int64))
            parts["is_leaf"].append(nodes["is_leaf"].astype(np.uint8))
            parts["value"].append(nodes["value"].astype(np.float64))
    out = {f: np.concatenate(v) for f, v in parts.items()}
    out["tree_start"] = np.asarray(starts, dtype=np.int64)
    out["baseline"] = np.asarray(model._baseline_prediction, dtype=np.float64).reshape(-1)
    out["classes"] = np.asarray(model.classes_, dtype=np.int64)
    out["n_features"] = np.asarray([model.n_features_in_], dtype=np.int64)
    return out


def as_trees(model: Any) -> TreeEnsemble:
    return model if isinstance(model, TreeEnsemble) else TreeEnsemble(trees_from_sklearn(model))


# ---------------------------------------------------------------- calibration


class Isotonic:
    """An isotonic map from its knots: clipped to the knots' range, then linear between them
    (the arithmetic of scikit-learn's ``IsotonicRegression.predict`` with ``out_of_bounds="clip"``)."""

    def __init__(self, x: Sequence[float], y: Sequence[float]):
        self.x = np.asarray(x, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        if self.x.ndim != 1 or len(self.x) != len(self.y) or not len(self.x) or np.any(np.diff(self.x) < 0):
            raise ModelFileError("the calibration knots are malformed")
        if not (np.all(np.isfinite(self.x)) and np.all(np.isfinite(self.y))):
            raise ModelFileError("the calibration knots are not finite numbers")

    def predict(self, values: Sequence[float]) -> np.ndarray:
        t = np.clip(np.asarray(values, dtype=np.float64).reshape(-1), self.x[0], self.x[-1])
        if len(self.x) == 1:
            return np.full(len(t), self.y[0])
        hi = np.clip(np.searchsorted(self.x, t), 1, len(self.x) - 1)
        lo = hi - 1
        slope = (self.y[hi] - self.y[lo]) / (self.x[hi] - self.x[lo])
        return slope * (t - self.x[lo]) + self.y[lo]


def as_isotonic(model: Any) -> Isotonic | None:
    if model is None or isinstance(model, Isotonic):
        return model
    if getattr(model, "out_of_bounds", "clip") != "clip":
        raise ValueError("only a clipping isotonic calibration can be saved")
    return Isotonic(model.X_thresholds_, model.y_thresholds_)


# ---------------------------------------------------------------- the file


def _lightgbm_text(model: Any) -> str:
    booster = getattr(model, "booster_", model)
    return booster.model_to_string()


def write_model_file(
    path: str | Path,
    *,
    passes: dict[str, list[Any]],
    kinds: dict[str, str],
    turns: Any,
    calibration: Any,
    header: dict[str, Any],
) -> None:
    """Write a model: ``passes`` maps each learner to its models, one per pass; ``kinds`` says
    whether a learner is ``"trees"`` (scikit-learn histogram boosting) or ``"lightgbm"``."""
    manifest: dict[str, Any] = {"format": FORMAT, **header, "learners": {}}
    members: dict[str, bytes] = {}
    for learner, models in passes.items():
        names = []
        for k, model in enumerate(models, start=1):
            if kinds[learner] == "lightgbm":
                name = f"{learner}-{k}.txt"
                members[name] = _lightgbm_text(model).encode("utf-8")
            else:
                name = f"{learner}-{k}.npz"
                members[name] = _npz_bytes(trees_from_sklearn(model) if not isinstance(model, TreeEnsemble) else _arrays_of(model))
            names.append(name)
        manifest["learners"][learner] = {"kind": kinds[learner], "passes": names}
    members["turns.npz"] = _npz_bytes(trees_from_sklearn(turns) if not isinstance(turns, TreeEnsemble) else _arrays_of(turns))
    manifest["turns"] = "turns.npz"
    iso = as_isotonic(calibration)
    manifest["calibration"] = None if iso is None else {"x": iso.x.tolist(), "y": iso.y.tolist()}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        zf.writestr(MANIFEST, json.dumps(manifest, indent=1))
        for name, data in members.items():
            zf.writestr(name, data)


def _arrays_of(trees: TreeEnsemble) -> dict[str, np.ndarray]:
    owner = np.repeat(np.arange(len(trees.tree_start)), np.diff(np.append(trees.tree_start, len(trees.feature))))
    return {
        "feature": trees.feature, "threshold": trees.threshold, "missing_left": trees.missing_left.astype(np.uint8),
        "left": trees.left - trees.tree_start[owner], "right": trees.right - trees.tree_start[owner],
        "is_leaf": trees.is_leaf.astype(np.uint8), "value": trees.value, "tree_start": trees.tree_start,
        "baseline": trees.baseline, "classes": trees.classes_, "n_features": np.asarray([trees.n_features]),
    }


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def read_model_file(path: str | Path) -> dict[str, Any]:
    """The manifest with the models in place: ``learners`` → {learner: {"kind", "passes": [models]}},
    ``turns`` a :class:`TreeEnsemble`, ``calibration`` an :class:`Isotonic` or None.

    Raises :class:`ModelFileError` for anything that is not such a file.
    """
    path = Path(path)
    try:
        is_zip = zipfile.is_zipfile(path)
    except OSError as exc:
        raise ModelFileError(f"cannot read the file ({exc.strerror})") from exc
    if not is_zip:
        raise ModelFileError(
            "it is not a ZIP archive holding model.json (a pickled .joblib model of an older LitLens is not read, "
            "because unpickling a file can run code)"
        )
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            if MANIFEST not in infos:
                raise ModelFileError("the archive has no model.json")
            if any(i.file_size > _MAX_MEMBER_BYTES for i in infos.values()):
                raise ModelFileError("a member of the archive is implausibly large")

            def member(name: object) -> bytes:
                if not isinstance(name, str) or name not in infos or name == MANIFEST:
                    raise ModelFileError(f"model.json names a member {name!r} the archive does not hold")
                return zf.read(name)

            try:
                manifest = json.loads(zf.read(MANIFEST).decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                raise ModelFileError(f"model.json is not valid JSON ({exc})") from exc
            if not isinstance(manifest, dict) or not str(manifest.get("format", "")).startswith("litlens-attributor-"):
                raise ModelFileError("model.json does not name a LitLens attributor format")
            if manifest["format"] != FORMAT:
                raise ModelFileError(f"the model is in format {manifest['format']!r}, this LitLens reads {FORMAT!r}")
            learners = manifest.get("learners")
            if not isinstance(learners, dict):
                raise ModelFileError("model.json has no learners")
            loaded: dict[str, dict[str, Any]] = {}
            for learner, spec in learners.items():
                if not isinstance(spec, dict) or spec.get("kind") not in ("trees", "lightgbm") or not isinstance(spec.get("passes"), list):
                    raise ModelFileError(f"model.json describes learner {learner!r} in a way this LitLens does not know")
                models = [_read_lightgbm(member(n)) if spec["kind"] == "lightgbm" else _read_trees(member(n)) for n in spec["passes"]]
                loaded[str(learner)] = {"kind": spec["kind"], "passes": models}
            turns = _read_trees(member(manifest.get("turns")))
            cal = manifest.get("calibration")
            if cal is not None and not (isinstance(cal, dict) and isinstance(cal.get("x"), list) and isinstance(cal.get("y"), list)):
                raise ModelFileError("model.json's calibration is malformed")
            calibration = None if cal is None else Isotonic(cal["x"], cal["y"])
    except zipfile.BadZipFile as exc:
        raise ModelFileError(f"the ZIP archive is damaged ({exc})") from exc
    return {**manifest, "learners": loaded, "turns": turns, "calibration": calibration}


def _read_trees(data: bytes) -> TreeEnsemble:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:  # ValueError: it would need pickle
        raise ModelFileError(f"a tree member is not a plain numpy archive ({exc})") from exc
    missing = [f for f in (*TreeEnsemble.FIELDS, "tree_start", "baseline", "classes", "n_features") if f not in arrays]
    if missing:
        raise ModelFileError(f"a tree member lacks {', '.join(missing)}")
    if any(a.dtype.kind not in "biuf" for a in arrays.values()):
        raise ModelFileError("a tree member holds arrays that are not numbers")
    return TreeEnsemble(arrays)


def _read_lightgbm(data: bytes) -> Any:
    import lightgbm

    try:
        return lightgbm.Booster(model_str=data.decode("utf-8"))
    except (UnicodeDecodeError, lightgbm.basic.LightGBMError) as exc:
        raise ModelFileError(f"a LightGBM member is not a LightGBM text model ({exc})") from exc
