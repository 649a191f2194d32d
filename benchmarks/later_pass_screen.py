"""Screen a later-pass feature of the CPU attributor in minutes instead of hours.

Retraining the five fold attributors takes about four hours here. This screen stands a
small second stage in for the later pass:

1. the reduced ranker of ``speakers_cv.py`` (the first pass's LightGBM, base features)
   gives each novel's answers from the folds that never saw it (5-fold leave-novels-out,
   novel i in fold i mod 5; cached per seed under ``--cache``);
2. a LightGBM second stage reads, per (quotation, candidate), the first-pass probability,
   its rank and lead, and the similarities asked for with ``--with``, and is trained on the
   other folds' novels;
3. turn taking as shipped (a turn model per fold), then accuracy by the seed-003 convention
   (speakers with at least 10 quotations, gold quotations and characters).

Similarities (each a cosine and its lead over the best other candidate, the quotation left
out of its own speaker's vector, by :func:`litlens.attribution.features.style_similarity`):

* ``words``: the shipped tf-idf of the quotations' words (``p1_style_sim``);
* ``encoder``: the packaged all-MiniLM-L6-v2 vectors of each quotation (the twenty-sixth
  session's ``p1_meaning_sim``, not shipped: docs/speakers.md);
* ``chars``: tf-idf of character 2-4-grams.

The second stage's first-pass answers on its training novels come from models that saw
the novel being scored, so absolute figures run a little high; compare variants, and
seeds (``--seed``) for the spread.

Usage:
    .venv/bin/python benchmarks/later_pass_screen.py --with words --with words,encoder --with words,chars
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import speakers_cv  # noqa: E402
from litlens.attribution import features  # noqa: E402
from litlens.attribution.dialogue import change_odds, turn_taking  # noqa: E402
from litlens.services import attribution as service  # noqa: E402
from litlens.services.evaluation import pdnc_novel_dirs  # noqa: E402

FOLDS = 5
KINDS = ("words", "encoder", "chars")
_WORD_VECTORS = features.quotation_vectors  # the shipped tf-idf, before _similarity swaps it


def _texts(ctx) -> list[str]:
    return [" ".join(ctx.text[s:e] for s, e in qc.spans) for qc in ctx.quotes]


def _vectors(kind: str, ctx):
    """A row-normalised sparse matrix, one row per quotation (None: nothing to compare)."""
    from scipy import sparse

    if kind == "words":
        return _WORD_VECTORS(ctx)
    if kind == "encoder":
        from litlens.retrieval.dense import shared_encoder

        return sparse.csr_matrix(shared_encoder().encode_passages(_texts(ctx)))
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, min_df=2).fit_transform(_texts(ctx))


def _similarity(kind: str, book, first):
    features.quotation_vectors = lambda ctx: _vectors(kind, ctx)
    try:
        return features.style_similarity(book.context, book.candidates, first)
    finally:
        features.quotation_vectors = _WORD_VECTORS


def _first_pass(books, seed: int, cache: Path) -> dict[int, list[dict[int, float]]]:
    path = cache / f"first_seed{seed}.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    speakers_cv.SEED = seed
    first: dict[int, list[dict[int, float]]] = {}
    for f in range(FOLDS):
        model, _ = speakers_cv.fit([b for i, b in enumerate(books) if i % FOLDS != f])
        for i, book in enumerate(books):
            if i % FOLDS == f:
                first[i] = speakers_cv.first_pass(model, book)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(first))
    return first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdnc", default=str(REPO.parent / "shared" / "data" / "pdnc"))
    parser.add_argument("--with", dest="variants", action="append", default=None,
                        help="comma-separated similarities (words, encoder, chars); repeat for several variants; "
                             "an empty string is the first pass alone")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/litlens_later_pass"))
    args = parser.parse_args()
    variants = [[k for k in v.split(",") if k] for v in (args.variants or ["words", "words,encoder"])]
    for kinds in variants:
        if unknown := set(kinds) - set(KINDS):
            parser.error(f"unknown similarity {', '.join(sorted(unknown))}; choose among {', '.join(KINDS)}")
    from lightgbm import LGBMClassifier

    books = [service.load_novel(d).prepared for d in pdnc_novel_dirs(args.pdnc)]
    first = _first_pass(books, args.seed, args.cache)
    speakers_cv.SEED = args.seed
    turns = {f: speakers_cv.fit_turns([b for i, b in enumerate(books) if i % FOLDS != f]) for f in range(FOLDS)}
    sims = {k: {i: _similarity(k, b, first[i]) for i, b in enumerate(books)} for k in {k for v in variants for k in v}}

    def rows(i: int, q: int) -> np.ndarray:
        p = np.array([first[i][q].get(c, 0.0) for c in books[i].candidates[q]])
        rank = np.argsort(np.argsort(-p, kind="stable"), kind="stable")
        second = np.sort(p)[-2] if len(p) > 1 else 0.0
        cols = [p, np.log(p + 1e-6), rank, np.full(len(p), len(p)), p - second]
        return np.column_stack(cols + [sims[k][i][q] for k in kinds])

    for kinds in variants:
        answers = {}
        for f in range(FOLDS):
            train = [i for i in range(len(books)) if i % FOLDS != f]
            x, y = [], []
            for i in train:
                for q, cands in enumerate(books[i].candidates):
                    label = books[i].labels[q]
                    if cands and label is not None:
                        x.append(rows(i, q))
                        y.append([c == label for c in cands])
            model = LGBMClassifier(n_estimators=150, num_leaves=15, learning_rate=0.05, min_child_samples=50,
                                   n_jobs=2, random_state=args.seed, verbose=-1).fit(np.vstack(x), np.concatenate(y))
            for i in (i for i in range(len(books)) if i % FOLDS == f):
                book, dists = books[i], []
                for q, cands in enumerate(book.candidates):
                    if not cands:
                        dists.append({})
                        continue
                    x_q = rows(i, q)
                    z = model.predict(x_q, raw_score=True)
                    e = np.exp(z - z.max()) * (x_q[:, 0] > 0)  # a candidate the first pass ruled out stays out
                    e = e if e.sum() > 0 else x_q[:, 0]
                    dists.append({c: float(v) for c, v in zip(cands, e / e.sum())})
                answers[i] = turn_taking(book.context, dists, change_odds(book.context, turns[f]))
        right, total = speakers_cv.right_and_scored(books, answers)
        print(f"{'+'.join(kinds) or 'first pass alone':24} seed {args.seed}: {100 * right / total:.2f} % ({right}/{total})")


if __name__ == "__main__":
    main()
