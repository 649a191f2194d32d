"""The learned part of the CPU attributor: a two-pass ranker over candidate characters.

Pass 1 scores each (quotation, candidate) pair from :data:`BASE_FEATURES`, and from each
feature's lead over the quotation's best other candidate, with gradient boosted trees; the
scores of one quotation's candidates are normalised with a softmax, and a cue that tells
the speaker's sex ("returned she", "cried his wife") leaves out the candidates of the
other sex, as a name the quotation addresses ("My dear Mr. Bennet") leaves out that
character, when anyone else is left.
Each later pass adds the previous pass's answers for the neighbouring quotations and the
rest of the conversation, and how much the quotation's words resemble each candidate's
words elsewhere in the book by those answers (:data:`SECOND_FEATURES`), and scores again,
so that a speaker named once is carried along a run of unattributed turns. For training
a later pass, the previous pass's answers on the training novels come from models that did
not see those novels (cross-fitting by novel), so the pass learns how far to trust them.
Last, each conversation is read as a whole (:mod:`litlens.attribution.dialogue`): the
last pass's probabilities, and a small model of when the speaker changes at a new turn,
give each quotation its marginal over every assignment of speakers to the conversation.
An isotonic map from the winning probability to the observed accuracy, fitted on held-out
novels, gives the confidence.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import threadpool_limits

from litlens.attribution.context import BookContext
from litlens.attribution.dialogue import TURN_FEATURES, change_odds, fit_turn_model, turn_taking
from litlens.attribution.features import BASE_FEATURES, SECOND_FEATURES, base_rows, candidates, second_rows
from litlens.model import Cancelled, Progress

if TYPE_CHECKING:  # scikit-learn takes seconds to import: only training and loading a model need it
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.isotonic import IsotonicRegression

MODEL_FORMAT = "litlens-attributor-4"
PASSES = 2  # the first pass and one that reads its answers (a third measured no better)


@dataclass
class PreparedBook:
    """A book's candidates and first-pass features, with gold labels when training."""

    name: str
    context: BookContext
    candidates: list[list[int]]
    base: list[np.ndarray]
    labels: list[int | None] = field(default_factory=list)  # gold speaker's character index


def prepare(name: str, context: BookContext, labels: Sequence[int | None] | None = None) -> PreparedBook:
    cands = candidates(context)
    return PreparedBook(name, context, cands, base_rows(context, cands), list(labels or []))


def _cpu_share() -> threadpool_limits:
    """Limit the trees' OpenMP threads to all cores but one.

    Gradient-boosted trees synchronise their threads at every split; when another process
    holds a core (the GUI, a second analysis), threads that wait on it spin, and a fit that
    takes seconds on an idle machine took minutes on a loaded 2-core one. One core left free
    avoids that at a small cost on an idle machine.
    """
    return threadpool_limits(limits=max(1, (os.cpu_count() or 2) - 1), user_api="openmp")


def _new_model(seed: int) -> HistGradientBoostingClassifier:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=200, learning_rate=0.1, max_leaf_nodes=63, min_samples_leaf=50, l2_regularization=1.0, random_state=seed
    )


def leads(rows: np.ndarray) -> np.ndarray:
    """Each candidate's lead on each feature over the best other candidate of the quotation.

    A tree sees one (quotation, candidate) row at a time; whether a candidate's 0.4 is the
    quotation's best or trails a 0.9 is only visible next to the other rows. Zero for a
    quotation's only candidate, and for candidates tied at the top.
    """
    if len(rows) < 2:
        return np.zeros_like(rows, dtype=float)
    top = -np.partition(-rows, 1, axis=0)[:2]  # per column: best, second best
    best_other = np.where(rows == top[0], top[1], top[0])
    return rows - best_other


def _model_input(rows: np.ndarray, second: np.ndarray | None) -> np.ndarray:
    """One quotation's candidate rows as the trees read them: the features, then their leads."""
    x = rows if second is None else np.hstack([rows, second])
    return np.hstack([x, leads(x)])


def _stack(books: Sequence[PreparedBook], second: Sequence[list[np.ndarray]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for bi, book in enumerate(books):
        for qi, rows in enumerate(book.base):
            label = book.labels[qi] if qi < len(book.labels) else None
            if label is None or not len(rows):
                continue
            xs.append(_model_input(rows, None if second is None else second[bi][qi]))
            ys.append(np.array([c == label for c in book.candidates[qi]], dtype=np.int8))
    if not xs:
        return np.zeros((0, 2 * (len(BASE_FEATURES) + (len(SECOND_FEATURES) if second is not None else 0)))), np.zeros(0)
    return np.vstack(xs), np.concatenate(ys)


def _softmax_scores(model: HistGradientBoostingClassifier, book: PreparedBook, second: list[np.ndarray] | None) -> list[dict[int, float]]:
    sizes = [len(r) for r in book.base]
    if not sum(sizes):
        return [{} for _ in sizes]
    x = np.vstack([_model_input(r, None if second is None else second[qi]) for qi, r in enumerate(book.base) if len(r)])
    logit = model.decision_function(x)
    out: list[dict[int, float]] = []
    k = 0
    for qi, n in enumerate(sizes):
        if n == 0:
            out.append({})
            continue
        z = logit[k : k + n]
        k += n
        e = np.exp(z - z.max())
        p = e / e.sum()
        out.append(_rule_out(book.context, qi, {c: float(pi) for c, pi in zip(book.candidates[qi], p)}))
    return out


def _rule_out(ctx: BookContext, qi: int, dist: dict[int, float]) -> dict[int, float]:
    """A cue that tells the speaker's sex ("returned she", "cried his wife") rules out the
    candidates of the other sex, and a character the quotation addresses by name ("My
    dear Mr. Bennet, ...") is not its speaker, unless that would leave nobody."""
    qc = ctx.quotes[qi]
    other = {"male": "female", "female": "male"}.get(qc.cue_pronoun or "")
    if other is None and not qc.vocatives:
        return dist
    kept = {c: p for c, p in dist.items() if ctx.characters[c].gender != other and c not in qc.vocatives}
    total = sum(kept.values())
    if not kept or total <= 0:
        return dist
    return {c: kept.get(c, 0.0) / total for c in dist}


def _max_probs(dists: list[dict[int, float]]) -> list[tuple[int | None, float]]:
    return [(max(d, key=d.get), max(d.values())) if d else (None, 0.0) for d in dists]


@dataclass
class SpeakerRanker:
    first: HistGradientBoostingClassifier
    later: list[HistGradientBoostingClassifier]  # passes 2, 3, ...
    turns: HistGradientBoostingClassifier  # who speaks at a new turn: see litlens.attribution.dialogue
    calibration: IsotonicRegression | None
    trained_on: list[str]
    meta: dict = field(default_factory=dict)

    def distributions(self, book: PreparedBook) -> list[dict[int, float]]:
        """Per quotation: candidate character index -> probability (last pass)."""
        with _cpu_share():
            p = _softmax_scores(self.first, book, None)
            for model in self.later:
                p = _softmax_scores(model, book, second_rows(book.context, book.candidates, p))
            return turn_taking(book.context, p, change_odds(book.context, self.turns))

    def predict(self, book: PreparedBook) -> list[tuple[int | None, float]]:
        """Per quotation: (character index or None, calibrated confidence)."""
        out = []
        for best, p in _max_probs(self.distributions(book)):
            conf = float(self.calibration.predict([p])[0]) if self.calibration is not None and best is not None else p
            out.append((best, conf))
        return out

    def to_state(self) -> dict:
        import sklearn

        return {
            "format": MODEL_FORMAT,
            "first": self.first,
            "later": list(self.later),
            "turns": self.turns,
            "calibration": self.calibration,
            "trained_on": list(self.trained_on),
            "base_features": list(BASE_FEATURES),
            "second_features": list(SECOND_FEATURES),
            "turn_features": list(TURN_FEATURES),
            "meta": dict(self.meta),
            "sklearn": sklearn.__version__,
        }


def _folds(n: int, k: int) -> list[list[int]]:
    k = max(2, min(k, n))
    return [list(range(i, n, k)) for i in range(k)]


def train_ranker(
    books: Sequence[PreparedBook],
    *,
    inner_folds: int = 2,
    seed: int = 0,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> SpeakerRanker:
    """Fit the passes, the turn-taking model and the confidence calibration on labelled books (at least two)."""
    with _cpu_share():
        return _train(books, inner_folds=inner_folds, seed=seed, progress=progress, cancelled=cancelled)


def _train(
    books: Sequence[PreparedBook], *, inner_folds: int, seed: int, progress: Progress | None, cancelled: Cancelled | None
) -> SpeakerRanker:
    from litlens.errors import Cancelled as CancelledError

    report = progress or (lambda f, m: None)
    if len(books) < 2:
        raise ValueError("training the attributor needs at least two labelled novels")
    folds = _folds(len(books), inner_folds)
    steps = (PASSES + 1) * (len(folds) + 1)
    done = 0
    held: dict[int, list[dict[int, float]]] = {}  # the last pass's answers from models that did not see the novel
    features: list[list[np.ndarray]] | None = None
    models: list[HistGradientBoostingClassifier] = []
    for k in range(PASSES):
        if k:
            features = [second_rows(b.context, b.candidates, held[i]) for i, b in enumerate(books)]
        for fi, fold in enumerate(folds):
            if cancelled and cancelled():
                raise CancelledError("training")
            report(done / steps, f"pass {k + 1} of {PASSES}, fold {fi + 1} of {len(folds)}")
            train_idx = [i for i in range(len(books)) if i not in fold]
            x, y = _stack([books[i] for i in train_idx], None if features is None else [features[i] for i in train_idx])
            model = _new_model(seed).fit(x, y)
            for i in fold:
                held[i] = _softmax_scores(model, books[i], None if features is None else features[i])
            done += 1
        report(done / steps, f"pass {k + 1} of {PASSES}, all novels")
        x, y = _stack(books, features)
        models.append(_new_model(seed).fit(x, y))
        done += 1
    # The whole conversation read at once, with turn models that did not see the novel either.
    for fi, fold in enumerate(folds):
        if cancelled and cancelled():
            raise CancelledError("training")
        report(done / steps, f"turn taking, fold {fi + 1} of {len(folds)}")
        turns = fit_turn_model([(books[i].context, books[i].labels) for i in range(len(books)) if i not in fold], seed)
        for i in fold:
            held[i] = turn_taking(books[i].context, held[i], change_odds(books[i].context, turns))
        done += 1
    report(done / steps, "turn taking, all novels")
    turns = fit_turn_model([(b.context, b.labels) for b in books], seed)
    winners: list[float] = []
    right: list[int] = []
    for i, book in enumerate(books):
        for qi, (best, p) in enumerate(_max_probs(held[i])):
            label = book.labels[qi] if qi < len(book.labels) else None
            if label is None or best is None:
                continue
            winners.append(p)
            right.append(int(best == label))
    calibration = None
    if winners:
        from sklearn.isotonic import IsotonicRegression

        calibration = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(winners, right)
    report(1.0, "trained")
    return SpeakerRanker(models[0], models[1:], turns, calibration, [b.name for b in books])


def ranker_from_state(state: dict) -> SpeakerRanker:
    if not isinstance(state, dict) or not str(state.get("format", "")).startswith("litlens-attributor-"):
        raise ValueError("not a LitLens attributor model")
    if state["format"] != MODEL_FORMAT:
        raise ValueError(f"the model is in format {state['format']!r}, this LitLens reads {MODEL_FORMAT!r}")
    if (
        state.get("base_features") != list(BASE_FEATURES)
        or state.get("second_features") != list(SECOND_FEATURES)
        or state.get("turn_features") != list(TURN_FEATURES)
    ):
        raise ValueError("the model was trained on other features than this LitLens computes")
    return SpeakerRanker(state["first"], list(state["later"]), state["turns"], state.get("calibration"), list(state.get("trained_on", [])), dict(state.get("meta", {})))


def entropy(dist: dict[int, float]) -> float:
    return -sum(p * math.log(p) for p in dist.values() if p > 0)
