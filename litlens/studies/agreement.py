"""Inter-annotator agreement: Fleiss' κ, Cohen's κ, Krippendorff's α, agreement shares,
accuracy against gold, and bootstrap confidence intervals over items.

Pure numpy. Everything starts from a :class:`RatingTable`: items × annotators, each cell
the index of a category in an ordered scale, or -1 when that annotator did not rate it.

Conventions (also in the README):

* **Undefined statistics are NaN** (``None`` in JSON). Chance-corrected coefficients are
  0/0 when every rating falls in one category (expected agreement is 1); the reference
  libraries return NaN (statsmodels, scikit-learn) or raise (krippendorff) there, and we
  return NaN rather than inventing a 1.0. The all-agree share still shows the agreement.
* **Fleiss' κ with unequal numbers of raters per item** uses the standard generalisation:
  an item's agreement is ``Σ n_ij (n_ij - 1) / (n_i (n_i - 1))``, category shares are pooled
  over all ratings, and items with fewer than two ratings are left out. With the same
  number of raters on every item this is exactly Fleiss (1971).
* **Cohen's κ** uses the items both annotators rated; weights (linear, quadratic) are by
  position on the whole scale, like scikit-learn's ``cohen_kappa_score(labels=scale)``.
* **Krippendorff's α** allows missing ratings; units with fewer than two ratings are not
  pairable and are left out. Ordinal distances use the pooled category frequencies.
* **All agree / none agree** are shares of items with at least two ratings; "none agree"
  means every rating on the item differs from the others.
* **Bootstrap**: items are resampled with replacement (seeded), percentile 95% intervals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

LEVELS = ("nominal", "ordinal", "interval")
WEIGHTS = (None, "linear", "quadratic")


@dataclass(frozen=True)
class RatingTable:
    """Ratings as category indices: ``codes[i, a]`` is annotator a's rating of item i (-1: none)."""

    items: tuple[str, ...]
    annotators: tuple[str, ...]
    categories: tuple  # the ordered scale
    codes: np.ndarray

    @classmethod
    def from_triples(
        cls,
        triples: Iterable[tuple[str, str, object]],
        categories: Sequence | None = None,
    ) -> RatingTable:
        """Build from (item, annotator, label) triples; a later triple for the same cell wins."""
        triples = list(triples)
        if categories is None:
            categories = sorted({t[2] for t in triples}, key=_sort_key)
        cat_index = {c: k for k, c in enumerate(categories)}
        items = list(dict.fromkeys(t[0] for t in triples))
        annotators = sorted({t[1] for t in triples})
        item_index = {x: i for i, x in enumerate(items)}
        ann_index = {a: j for j, a in enumerate(annotators)}
        codes = np.full((len(items), len(annotators)), -1, dtype=np.int64)
        for item, annotator, label in triples:
            if label not in cat_index:
                raise ValueError(f"label {label!r} is not on the scale {list(categories)}")
            codes[item_index[item], ann_index[annotator]] = cat_index[label]
        return cls(tuple(items), tuple(annotators), tuple(categories), codes)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def counts(self) -> np.ndarray:
        """items × categories: how many annotators chose each category for each item."""
        k = self.n_categories
        n = len(self.items)
        out = np.zeros((n, k), dtype=np.float64)
        rows, cols = np.nonzero(self.codes >= 0)
        np.add.at(out, (rows, self.codes[rows, cols]), 1.0)
        return out

    def subset(self, item_mask: np.ndarray) -> RatingTable:
        idx = np.flatnonzero(item_mask)
        return RatingTable(tuple(self.items[i] for i in idx), self.annotators, self.categories, self.codes[idx])


def _sort_key(value: object) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


# ---------------------------------------------------------------- weighted core
# Each statistic is written over item weights w (shape B × N, or N), so a bootstrap
# replicate is the same computation with multinomial weights: one matrix product.

def _fleiss_from_counts(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    m = counts.sum(1)
    ok = m >= 2
    if not ok.any():
        return np.full(w.shape[:-1], np.nan)
    # Items with fewer than two ratings are masked out (no copy of w: it can be B × N).
    c = counts * ok[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        p_item = np.where(ok, (counts * (counts - 1)).sum(1) / (m * (m - 1)), 0.0)
        p_bar = (w @ p_item) / (w @ ok.astype(float))
        p_cat = (w @ c) / (w @ (m * ok))[..., None]
        p_e = (p_cat**2).sum(-1)
        kappa = (p_bar - p_e) / (1.0 - p_e)
    return np.where(np.abs(1.0 - p_e) < 1e-12, np.nan, kappa)


def _group_weights(w: np.ndarray, labels: np.ndarray, cols: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sum item weights per label: (labels present, … × labels). ``w[..., cols[i]]`` is item i's weight."""
    uniq, inverse = np.unique(labels, return_inverse=True)
    cols = np.arange(len(labels)) if cols is None else cols
    if w.ndim == 1:
        return uniq, np.bincount(inverse.ravel(), weights=w[cols], minlength=len(uniq))
    # A sparse (labels × items) indicator times the weights: no copy of the B × N weight matrix.
    from scipy.sparse import csr_matrix

    indicator = csr_matrix((np.ones(len(cols)), (inverse.ravel(), cols)), shape=(len(uniq), w.shape[-1]))
    return uniq, np.asarray((indicator @ w.T).T)


def _distance_matrix(level: str, k: int, values: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """k × k squared distances δ²; ``marginals`` (… × k) only matters for ordinal."""
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ordinal":
        cum = np.cumsum(marginals, axis=-1)
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        # Σ_{g=lo..hi} n_g − (n_lo + n_hi)/2
        span = cum[..., hi] - cum[..., lo] + marginals[..., lo]
        d = span - (marginals[..., lo] + marginals[..., hi]) / 2.0
        return d**2
    raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")


def _alpha_from_counts(counts: np.ndarray, w: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    m = counts.sum(1)
    ok = m >= 2
    c, m = counts[ok], m[ok]
    w = w[..., ok]
    k = counts.shape[1]
    if c.shape[0] == 0:
        return np.full(w.shape[:-1], np.nan)
    # Units with the same rating pattern contribute the same coincidences: group them first.
    patterns, inverse = np.unique(c, axis=0, return_inverse=True)
    _, w = _group_weights(w, inverse.ravel())
    c = patterns
    m = c.sum(1)
    # Per-pattern coincidences (U × k²): (c c^T − diag c) / (m − 1)
    per_unit = (c[:, :, None] * c[:, None, :]) - np.einsum("ij,jk->ijk", c, np.eye(k))
    per_unit = (per_unit / (m - 1)[:, None, None]).reshape(len(c), k * k)
    o = (w @ per_unit).reshape(*w.shape[:-1], k, k)
    n_c = o.sum(-1)
    n = n_c.sum(-1)
    delta = _distance_matrix(level, k, values, n_c)
    d_o = (o * delta).sum((-1, -2))
    d_e = ((n_c[..., :, None] * n_c[..., None, :]) * delta).sum((-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1.0 - (n - 1.0) * d_o / d_e
    return np.where(d_e <= 1e-12, np.nan, alpha)


def _cohen_weights(k: int, weights: str | None) -> np.ndarray:
    idx = np.arange(k)
    diff = np.abs(idx[:, None] - idx[None, :]).astype(float)
    if weights is None:
        return (diff > 0).astype(float)
    if weights == "linear":
        return diff
    if weights == "quadratic":
        return diff**2
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")


def _cohen_from_pairs(x: np.ndarray, y: np.ndarray, k: int, w: np.ndarray, weights: str | None,
                      cols: np.ndarray | None = None) -> np.ndarray:
    """κ from paired codes; ``cols`` are the columns of ``w`` that belong to the pairs (default: all)."""
    if len(x) == 0:
        return np.full(w.shape[:-1], np.nan)
    cells, sums = _group_weights(w, x * k + y, cols)
    conf = np.zeros((*w.shape[:-1], k * k))
    conf[..., cells] = sums
    conf = conf.reshape(*w.shape[:-1], k, k)
    total = conf.sum((-1, -2))
    wm = _cohen_weights(k, weights)
    expected = conf.sum(-1)[..., :, None] * conf.sum(-2)[..., None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = expected / total[..., None, None]
        num = (wm * conf).sum((-1, -2))
        den = (wm * expected).sum((-1, -2))
        kappa = 1.0 - num / den
    return np.where(den <= 1e-12, np.nan, kappa)


# ---------------------------------------------------------------- public statistics
def fleiss_kappa(table: RatingTable) -> float:
    """Fleiss' κ (generalised to unequal raters per item; see the module notes)."""
    counts = table.counts()
    return float(_fleiss_from_counts(counts, np.ones(len(counts))))


def fleiss_kappa_from_counts(counts: np.ndarray) -> float:
    counts = np.asarray(counts, dtype=float)
    return float(_fleiss_from_counts(counts, np.ones(len(counts))))


def krippendorff_alpha(table: RatingTable, level: str = "nominal") -> float:
    """Krippendorff's α at the nominal, ordinal or interval level; missing ratings allowed."""
    counts = table.counts()
    return float(_alpha_from_counts(counts, np.ones(len(counts)), level, _numeric_values(table, level)))


def _numeric_values(table: RatingTable, level: str) -> np.ndarray:
    if level != "interval":
        return np.arange(table.n_categories, dtype=float)
    try:
        return np.array([float(c) for c in table.categories])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"interval α needs numeric labels, got {list(table.categories)}") from exc


def _pair_codes(table: RatingTable, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ia, ib = table.annotators.index(a), table.annotators.index(b)
    both = (table.codes[:, ia] >= 0) & (table.codes[:, ib] >= 0)
    return table.codes[both, ia], table.codes[both, ib], both


def cohen_kappa(table: RatingTable, a: str, b: str, weights: str | None = None) -> float:
    """Cohen's κ between annotators a and b over the items both rated."""
    x, y, _ = _pair_codes(table, a, b)
    return float(_cohen_from_pairs(x, y, table.n_categories, np.ones(len(x)), weights))


def confusion_matrix(table: RatingTable, a: str, b: str) -> np.ndarray:
    """k × k counts: rows a's category, columns b's, over items both rated."""
    x, y, _ = _pair_codes(table, a, b)
    k = table.n_categories
    return np.bincount(x * k + y, minlength=k * k).reshape(k, k)


def agreement_shares(table: RatingTable) -> tuple[float, float]:
    """(all agree, none agree) as shares of items with at least two ratings."""
    counts = table.counts()
    m = counts.sum(1)
    ok = m >= 2
    if not ok.any():
        return math.nan, math.nan
    c = counts[ok]
    return float((c.max(1) == m[ok]).mean()), float((c.max(1) <= 1).mean())


def accuracies(table: RatingTable, gold: dict[str, object]) -> dict[str, float]:
    """Each annotator's share of correct answers among the gold items they rated."""
    correct, rated = _correct_matrix(table, gold)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = correct.sum(0) / rated.sum(0)
    return {a: float(acc[j]) for j, a in enumerate(table.annotators)}


def majority_accuracy(table: RatingTable, gold: dict[str, object]) -> float:
    """Share of gold items (with ≥ 2 ratings) where more than half of the raters chose gold."""
    correct, rated = _correct_matrix(table, gold)
    n_rated = rated.sum(1)
    ok = n_rated >= 2
    if not ok.any():
        return math.nan
    return float((correct.sum(1)[ok] * 2 > n_rated[ok]).mean())


def _correct_matrix(table: RatingTable, gold: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    cat_index = {c: k for k, c in enumerate(table.categories)}
    gold_code = np.array([cat_index.get(gold.get(item), -2) if item in gold else -2 for item in table.items])
    has_gold = gold_code >= 0
    rated = (table.codes >= 0) & has_gold[:, None]
    correct = rated & (table.codes == gold_code[:, None])
    return correct.astype(float), rated.astype(float)


# ---------------------------------------------------------------- summary with bootstrap
@dataclass
class Estimate:
    value: float
    low: float = math.nan
    high: float = math.nan

    def as_json(self) -> dict:
        return {"value": _json_num(self.value), "ci95": [_json_num(self.low), _json_num(self.high)]}


@dataclass
class AgreementSummary:
    items: int
    annotators: tuple[str, ...]
    level: str
    cohen_weights: str | None
    fleiss_kappa: Estimate
    krippendorff_alpha: Estimate
    all_agree: Estimate
    none_agree: Estimate
    cohen_kappa: dict[str, Estimate] = field(default_factory=dict)
    accuracy: dict[str, Estimate] = field(default_factory=dict)
    majority_accuracy: Estimate | None = None

    def as_json(self) -> dict:
        """The `litlens agreement --json` shape: plain numbers (NaN → null)."""
        return {
            "fleiss_kappa": _json_num(self.fleiss_kappa.value),
            "krippendorff_alpha": _json_num(self.krippendorff_alpha.value),
            "cohen_kappa": {k: _json_num(v.value) for k, v in self.cohen_kappa.items()},
            "all_agree": _json_num(self.all_agree.value),
            "none_agree": _json_num(self.none_agree.value),
            "items": self.items,
            "annotators": len(self.annotators),
        }

    def as_detailed_json(self) -> dict:
        out = {
            "items": self.items,
            "annotators": list(self.annotators),
            "level": self.level,
            "cohen_weights": self.cohen_weights,
            "fleiss_kappa": self.fleiss_kappa.as_json(),
            "krippendorff_alpha": self.krippendorff_alpha.as_json(),
            "all_agree": self.all_agree.as_json(),
            "none_agree": self.none_agree.as_json(),
            "cohen_kappa": {k: v.as_json() for k, v in self.cohen_kappa.items()},
        }
        if self.accuracy:
            out["accuracy"] = {k: v.as_json() for k, v in self.accuracy.items()}
        if self.majority_accuracy is not None:
            out["majority_accuracy"] = self.majority_accuracy.as_json()
        return out


def _json_num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)


_WEIGHT_CACHE: dict[tuple[int, int, int], np.ndarray] = {}


def bootstrap_weights(n_items: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """B × N multinomial resampling counts (cached: same seed, same replicates)."""
    key = (n_items, n_boot, seed)
    w = _WEIGHT_CACHE.get(key)
    if w is None:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n_items, size=(n_boot, n_items)) + (np.arange(n_boot) * n_items)[:, None]
        w = np.bincount(idx.ravel(), minlength=n_boot * n_items).reshape(n_boot, n_items).astype(float)
        if len(_WEIGHT_CACHE) > 8:
            _WEIGHT_CACHE.clear()
        _WEIGHT_CACHE[key] = w
    return w


def _estimate(point: float, reps: np.ndarray | None) -> Estimate:
    if reps is None:
        return Estimate(point)
    reps = reps[np.isfinite(reps)]
    if not math.isfinite(point) or len(reps) < 10:
        return Estimate(point)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    return Estimate(point, float(lo), float(hi))


def summarize(
    table: RatingTable,
    *,
    level: str = "nominal",
    cohen_weights: str | None = None,
    gold: dict[str, object] | None = None,
    n_boot: int = 0,
    seed: int = 0,
) -> AgreementSummary:
    """Every agreement number at once, with bootstrap 95% CIs when ``n_boot`` > 0."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    n = len(table.items)
    counts = table.counts()
    k = table.n_categories
    ones = np.ones((1, n))
    w = np.vstack([ones, bootstrap_weights(n, n_boot, seed)]) if n_boot and n else ones
    w = np.asfortranarray(w)  # column-major: w.T is contiguous for the sparse products below

    def split(values: np.ndarray) -> Estimate:
        return _estimate(float(values[0]), values[1:] if len(values) > 1 else None)

    fleiss = split(_fleiss_from_counts(counts, w))
    alpha = split(_alpha_from_counts(counts, w, level, _numeric_values(table, level)))
    m = counts.sum(1)
    ok = (m >= 2).astype(float)
    all_ag = (counts.max(1) == m) * ok if n else np.zeros(0)
    none_ag = (counts.max(1) <= 1) * ok if n else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = w @ ok
        all_s = split((w @ all_ag) / denom)
        none_s = split((w @ none_ag) / denom)
    pairs = {}
    for a, b in combinations(table.annotators, 2):
        x, y, both = _pair_codes(table, a, b)
        pairs[f"{a}|{b}"] = split(_cohen_from_pairs(x, y, k, w, cohen_weights, np.flatnonzero(both)))
    acc: dict[str, Estimate] = {}
    maj = None
    if gold:
        correct, rated = _correct_matrix(table, gold)
        with np.errstate(invalid="ignore", divide="ignore"):
            per = (w @ correct) / (w @ rated)
            for j, a in enumerate(table.annotators):
                acc[a] = split(per[:, j])
            n_rated = rated.sum(1)
            okm = (n_rated >= 2).astype(float)
            hit = (correct.sum(1) * 2 > n_rated) * okm
            maj = split((w @ hit) / (w @ okm))
    return AgreementSummary(n, table.annotators, level, cohen_weights, fleiss, alpha, all_s, none_s, pairs, acc, maj)


def fleiss_over_time(table: RatingTable, order: np.ndarray, points: int = 50) -> list[tuple[int, float]]:
    """Fleiss' κ after the first t judgments, at up to ``points`` checkpoints.

    ``order`` is a (n_judgments × 2) array of (item row, annotator column) in time order.
    """
    total = len(order)
    if total == 0:
        return []
    steps = sorted({max(1, round(total * (i + 1) / points)) for i in range(points)})
    k = table.n_categories
    counts = np.zeros((len(table.items), k))
    out = []
    done = 0
    for t in steps:
        rows, cols = order[done:t, 0], order[done:t, 1]
        codes = table.codes[rows, cols]
        keep = codes >= 0
        np.add.at(counts, (rows[keep], codes[keep]), 1.0)
        done = t
        m = counts.sum(1)
        ok = m >= 2
        if not ok.any():
            out.append((t, math.nan))
            continue
        c, m = counts[ok], m[ok]
        p_bar = float(((c * (c - 1)).sum(1) / (m * (m - 1))).mean())
        p_e = float(((c.sum(0) / m.sum()) ** 2).sum())
        out.append((t, math.nan if abs(1.0 - p_e) < 1e-12 else (p_bar - p_e) / (1.0 - p_e)))
    return out
