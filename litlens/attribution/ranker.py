"""The learned part of the CPU attributor: a two-pass ranker over candidate characters.

Pass 1 scores each (quotation, candidate) pair from :data:`BASE_FEATURES`, and from each
feature's lead over the quotation's best other candidate, with gradient boosted trees; the
scores of one quotation's candidates are normalised with a softmax. Two learners do this
side by side, each with its own passes, and their last passes' probabilities are averaged
(geometric mean): scikit-learn trees that judge each (quotation, candidate) pair alone
("pairs"), and LightGBM trees trained on one quotation's candidates at a time with the
cross-entropy of the softmax over them as the loss ("choice"; quotations whose speaker is
among no candidates teach it nothing and are left out). A cue that tells the speaker's sex
("returned she", "cried his wife") leaves out the candidates of the other sex, as a name the
quotation addresses ("My dear Mr. Bennet") leaves out that character, when anyone else is
left; a letter whose signature, or the narration setting it out, names its writer is given
to that character.
Each later pass adds the previous pass's answers for the neighbouring quotations and the
rest of the conversation, how much the quotation's words resemble each candidate's words
elsewhere in the book by those answers, and how much each candidate has been talking in
the book, the chapter and the conversation (:data:`SECOND_FEATURES`), and scores again,
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
from litlens.attribution.model_file import FORMAT, ModelFileError, read_model_file, write_model_file
from litlens.model import Cancelled, Progress

if TYPE_CHECKING:  # scikit-learn and LightGBM take seconds to import: only training and loading a model need them
    from lightgbm import LGBMRanker
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.isotonic import IsotonicRegression

    from litlens.attribution.model_file import Isotonic, TreeEnsemble

MODEL_FORMAT = FORMAT
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


def _threads() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


def _cpu_share() -> threadpool_limits:
    """Limit the trees' OpenMP threads to all cores but one.

    Gradient-boosted trees synchronise their threads at every split; when another process
    holds a core (the GUI, a second analysis), threads that wait on it spin, and a fit that
    takes seconds on an idle machine took minutes on a loaded 2-core one. One core left free
    avoids that at a small cost on an idle machine.
    """
    return threadpool_limits(limits=_threads(), user_api="openmp")


class _Pairs:
    """scikit-learn trees that judge each (quotation, candidate) row alone."""

    reachable_only = False  # a quotation whose speaker is no candidate still teaches "not these"
    kind = "trees"  # how the model file stores it

    def fit(self, seed: int, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> HistGradientBoostingClassifier:
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(
            max_iter=200, learning_rate=0.1, max_leaf_nodes=63, min_samples_leaf=50, l2_regularization=1.0, random_state=seed
        )
        return model.fit(x, y)

    def logits(self, model: HistGradientBoostingClassifier, x: np.ndarray) -> np.ndarray:
        return model.decision_function(x)


class _Choice:
    """LightGBM trees fitted on one quotation's candidates at a time (:func:`candidate_softmax_loss`)."""

    reachable_only = True  # with its speaker among no candidates, a quotation has no softmax target
    kind = "lightgbm"

    def fit(self, seed: int, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> LGBMRanker:
        from lightgbm import LGBMRanker

        model = LGBMRanker(
            objective=candidate_softmax_loss, n_estimators=600, learning_rate=0.03, num_leaves=63, min_child_samples=50,
            reg_lambda=1.0, colsample_bytree=0.5, random_state=seed, n_jobs=_threads(), deterministic=True,
            force_row_wise=True, verbose=-1,
        )
        return model.fit(x, y, group=groups)

    def logits(self, model: LGBMRanker, x: np.ndarray) -> np.ndarray:
        return model.predict(x, raw_score=True)


LEARNERS: dict[str, _Pairs | _Choice] = {"pairs": _Pairs(), "choice": _Choice()}


def candidate_softmax_loss(y_true: np.ndarray, y_pred: np.ndarray, weight: np.ndarray | None, group: np.ndarray):
    """Gradient and hessian of the cross-entropy of each quotation's softmax over its candidates.

    ``group`` holds the number of candidate rows of each quotation, in order; ``y_true`` is 1
    for the speaker's row. The hessian is the diagonal p(1-p), floored so that a leaf of
    near-certain rows still has a finite Newton step.
    """
    starts = np.concatenate([[0], np.cumsum(group)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(len(group)), group)
    z = y_pred - np.maximum.reduceat(y_pred, starts)[owner]
    e = np.exp(z)
    p = e / np.add.reduceat(e, starts)[owner]
    return p - y_true, np.maximum(p * (1.0 - p), 1e-6)


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


def _stack(
    books: Sequence[PreparedBook], second: Sequence[list[np.ndarray]] | None, reachable_only: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training rows, labels and group sizes (one group per labelled quotation; with
    ``reachable_only``, only those whose speaker is among the candidates)."""
    xs, ys, groups = [], [], []
    for bi, book in enumerate(books):
        for qi, rows in enumerate(book.base):
            label = book.labels[qi] if qi < len(book.labels) else None
            if label is None or not len(rows) or (reachable_only and label not in book.candidates[qi]):
                continue
            xs.append(_model_input(rows, None if second is None else second[bi][qi]))
            ys.append(np.array([c == label for c in book.candidates[qi]], dtype=np.int8))
            groups.append(len(rows))
    if not xs:
        among = " among its candidates" if reachable_only else ""
        raise ValueError(f"no training quotation has its gold speaker{among}")
    return np.vstack(xs), np.concatenate(ys), np.asarray(groups)


def _fit(learner: str, seed: int, books: Sequence[PreparedBook], second: Sequence[list[np.ndarray]] | None):
    x, y, groups = _stack(books, second, LEARNERS[learner].reachable_only)
    return LEARNERS[learner].fit(seed, x, y, groups)


def _softmax_scores(learner: str, model, book: PreparedBook, second: list[np.ndarray] | None) -> list[dict[int, float]]:
    sizes = [len(r) for r in book.base]
    if not sum(sizes):
        return [{} for _ in sizes]
    x = np.vstack([_model_input(r, None if second is None else second[qi]) for qi, r in enumerate(book.base) if len(r)])
    logit = LEARNERS[learner].logits(model, x)
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
    dear Mr. Bennet, ...") is not its speaker, unless that would leave nobody. A letter
    signed by a character ("Yours sincerely, / WILLIAM COLLINS.") or set out by narration
    that names its writer ("the letter from Jane, which ran thus:") is theirs."""
    qc = ctx.quotes[qi]
    signers = [c for c in qc.signed if c in dist]
    if signers:
        return {c: (1.0 / len(signers) if c in signers else 0.0) for c in dist}
    other = {"male": "female", "female": "male"}.get(qc.cue_pronoun or "")
    if other is None and not qc.vocatives:
        return dist
    kept = {c: p for c, p in dist.items() if ctx.characters[c].gender != other and c not in qc.vocatives}
    total = sum(kept.values())
    if not kept or total <= 0:
        return dist
    return {c: kept.get(c, 0.0) / total for c in dist}


def blend(runs: Sequence[list[dict[int, float]]]) -> list[dict[int, float]]:
    """Per quotation, the normalised geometric mean of the learners' probabilities (a
    candidate one learner rules out stays out)."""
    out = []
    for dists in zip(*runs):
        cands = list(dists[0])
        if not cands:
            out.append({})
            continue
        p = np.prod(np.asarray([[d.get(c, 0.0) for c in cands] for d in dists]) ** (1.0 / len(dists)), axis=0)
        total = p.sum()
        out.append({c: float(v / total) for c, v in zip(cands, p)} if total > 0 else dict(dists[0]))
    return out


def _run_passes(learner: str, models: Sequence, book: PreparedBook) -> list[dict[int, float]]:
    p = _softmax_scores(learner, models[0], book, None)
    for model in models[1:]:
        p = _softmax_scores(learner, model, book, second_rows(book.context, book.candidates, p))
    return p


def _max_probs(dists: list[dict[int, float]]) -> list[tuple[int | None, float]]:
    return [(max(d, key=d.get), max(d.values())) if d else (None, 0.0) for d in dists]


@dataclass
class SpeakerRanker:
    passes: dict[str, list]  # per learner (LEARNERS): its models for pass 1, 2, ...
    turns: HistGradientBoostingClassifier | TreeEnsemble  # who speaks at a new turn: see litlens.attribution.dialogue
    calibration: IsotonicRegression | Isotonic | None  # read from a file: the same maps as plain arrays
    trained_on: list[str]
    meta: dict = field(default_factory=dict)

    def distributions(self, book: PreparedBook) -> list[dict[int, float]]:
        """Per quotation: candidate character index -> probability (both learners, then turn taking)."""
        with _cpu_share():
            p = blend([_run_passes(learner, models, book) for learner, models in self.passes.items()])
            return turn_taking(book.context, p, change_odds(book.context, self.turns))

    def predict(self, book: PreparedBook) -> list[tuple[int | None, float]]:
        """Per quotation: (character index or None, calibrated confidence)."""
        out = []
        for best, p in _max_probs(self.distributions(book)):
            conf = float(self.calibration.predict([p])[0]) if self.calibration is not None and best is not None else p
            out.append((best, conf))
        return out

    def save(self, path) -> None:
        """Write the model as data only (:mod:`litlens.attribution.model_file`)."""
        import lightgbm
        import sklearn

        from litlens import __version__

        write_model_file(
            path,
            passes={k: list(v) for k, v in self.passes.items()},
            kinds={k: LEARNERS[k].kind for k in self.passes},
            turns=self.turns,
            calibration=self.calibration,
            header={
                "base_features": list(BASE_FEATURES),
                "second_features": list(SECOND_FEATURES),
                "turn_features": list(TURN_FEATURES),
                "trained_on": list(self.trained_on),
                "meta": dict(self.meta),
                "versions": {"litlens": __version__, "sklearn": sklearn.__version__, "lightgbm": lightgbm.__version__},
            },
        )


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
    steps = (len(LEARNERS) * PASSES + 1) * (len(folds) + 1)
    done = 0
    passes: dict[str, list] = {}
    runs: list[dict[int, list[dict[int, float]]]] = []
    for learner in LEARNERS:
        held: dict[int, list[dict[int, float]]] = {}  # the last pass's answers from models that did not see the novel
        features: list[list[np.ndarray]] | None = None
        passes[learner] = []
        for k in range(PASSES):
            if k:
                features = [second_rows(b.context, b.candidates, held[i]) for i, b in enumerate(books)]
            for fi, fold in enumerate(folds):
                if cancelled and cancelled():
                    raise CancelledError("training")
                report(done / steps, f"{learner}: pass {k + 1} of {PASSES}, fold {fi + 1} of {len(folds)}")
                train_idx = [i for i in range(len(books)) if i not in fold]
                model = _fit(learner, seed, [books[i] for i in train_idx], None if features is None else [features[i] for i in train_idx])
                for i in fold:
                    held[i] = _softmax_scores(learner, model, books[i], None if features is None else features[i])
                done += 1
            report(done / steps, f"{learner}: pass {k + 1} of {PASSES}, all novels")
            passes[learner].append(_fit(learner, seed, books, features))
            done += 1
        runs.append(held)
    held = {i: blend([run[i] for run in runs]) for i in range(len(books))}
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
    return SpeakerRanker(passes, turns, calibration, [b.name for b in books])


def load_ranker(path) -> SpeakerRanker:
    """Read a model written by :meth:`SpeakerRanker.save`; :class:`ModelFileError` says why a file is refused."""
    state = read_model_file(path)
    if (
        state.get("base_features") != list(BASE_FEATURES)
        or state.get("second_features") != list(SECOND_FEATURES)
        or state.get("turn_features") != list(TURN_FEATURES)
    ):
        raise ModelFileError("the model was trained on other features than this LitLens computes")
    learners = state["learners"]
    if sorted(learners) != sorted(LEARNERS) or any(learners[k]["kind"] != LEARNERS[k].kind for k in LEARNERS):
        raise ModelFileError("the model has other learners than this LitLens uses")
    if any(not learners[k]["passes"] for k in LEARNERS):
        raise ModelFileError("a learner of the model has no passes")
    trained_on, meta = state.get("trained_on", []), state.get("meta", {})
    if not isinstance(trained_on, list) or not all(isinstance(n, str) for n in trained_on) or not isinstance(meta, dict):
        raise ModelFileError("model.json's trained_on or meta is malformed")
    return SpeakerRanker({k: list(learners[k]["passes"]) for k in LEARNERS}, state["turns"], state["calibration"], trained_on, meta)


def entropy(dist: dict[int, float]) -> float:
    return -sum(p * math.log(p) for p in dist.values() if p > 0)
