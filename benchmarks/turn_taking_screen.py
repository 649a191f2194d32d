"""Screen changes to turn taking on the full fold attributors, in seconds per variant.

Turn taking (:mod:`litlens.attribution.dialogue`) reads the attributor's last-pass
probabilities, so a change to it needs no retraining: this screen computes, once, each
novel's last-pass probabilities with the fold attributor that never saw it
(``--fold-models DIR``: ``DIR/fold<i>.zip`` from ``attribution_folds.py train``, novel i in
fold i mod 5; cached in ``--cache``), then scores each variant of the step after them with
gold quotations and characters (speakers with at least 10 quotations, as
``speakers_cv.py --fold-models`` does; ``shipped`` reproduces its figure).

Variants (the twenty-seventh session's; docs/speakers.md):

* ``shipped``: turn taking as the product runs it.
* ``participants``: a LightGBM model of who takes part in a conversation (from the
  last-pass probabilities summed, maxed and ranked over the conversation, name cues,
  names in address, narration mentions in and before it), trained on the other folds'
  novels; each quotation's probabilities are multiplied by P(takes part) ** w before turn
  taking, for w in 0.25, 0.5, 1. ``oracle`` multiplies by 1 for the gold participants and
  0.02 for the others: what a perfect participant model could give this way.
* ``book-priors``: the odds of repeat / alternate / new at a new turn shifted by how the
  book's own name-cued turns go against the training novels' (add-one counts, weight s
  times n / (n + 50) for n cued turns), for s in 0.5, 1.
* ``three-back``: the hidden state remembers three speakers, and the turn model (retrained
  per fold, the shipped settings) tells apart a return of the speaker three turns back
  from a new one.
* ``top``: turn taking weighs 3, 4, 6 or 8 candidates per quotation instead of 5.

Usage:
    .venv/bin/python benchmarks/turn_taking_screen.py --fold-models FOLDS [--json benchmarks/results/turn_taking_screen.json]
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from litlens.attribution import dialogue as D  # noqa: E402
from litlens.attribution.ranker import _cpu_share, _run_passes, blend  # noqa: E402
from litlens.services import attribution as service  # noqa: E402
from litlens.services.evaluation import pdnc_novel_dirs  # noqa: E402
from speakers_cv import right_and_scored  # noqa: E402

FOLDS = 5


def last_pass(books, fold_models: Path, cache: Path):
    """Per novel, the fold attributor's last-pass probabilities (before turn taking), and each fold's turn model."""
    if cache.is_file():
        return pickle.loads(cache.read_bytes())
    from litlens.attribution.cpu import load_model

    pre, turns = {}, {}
    for f in range(FOLDS):
        ranker = load_model(fold_models / f"fold{f}.zip")
        turns[f] = ranker.turns
        for i, book in enumerate(books):
            if i % FOLDS == f:
                with _cpu_share():
                    pre[i] = blend([_run_passes(learner, models, book) for learner, models in ranker.passes.items()])
                print(f"fold {f + 1}: {book.name}", file=sys.stderr, flush=True)
    cache.write_bytes(pickle.dumps((pre, turns)))
    return pre, turns


def accuracy(books, answers) -> float:
    right, total = right_and_scored(books, answers)
    return round(100 * right / total, 2)


def shipped(books, pre, turns, odds=None):
    return {i: D.turn_taking(b.context, pre[i], (odds or {}).get(i) or D.change_odds(b.context, turns[i % FOLDS]))
            for i, b in enumerate(books)}


# ---- participants ---------------------------------------------------------------------

def _conversations(ctx) -> list[list[int]]:
    conv = ctx.conversations
    groups = defaultdict(list)
    for i in range(len(ctx.quotes)):
        groups[conv.first_turn[conv.turn_of[i]]].append(i)
    return [g for g in groups.values() if len(g) > 1]


def participant_rows(book, dists):
    """(quotations, character, features) for each candidate of each conversation."""
    ctx = book.context
    out = []
    for qs in _conversations(ctx):
        mass, top, cand, cue, address = (defaultdict(float), defaultdict(int), defaultdict(int), defaultdict(int),
                                         defaultdict(int))
        peak = defaultdict(float)
        for q in qs:
            d = {c: p for c, p in dists[q].items() if p > 0}
            for c, p in d.items():
                mass[c] += p
                peak[c] = max(peak[c], p)
                cand[c] += 1
            if d:
                top[max(d, key=d.get)] += 1
            qc = ctx.quotes[q]
            if len(qc.cue_characters) == 1:
                cue[qc.cue_characters[0]] += 1
            for c in qc.vocatives:
                address[c] += 1
        if not mass:
            continue
        first, last = ctx.quotes[qs[0]].paragraph, ctx.quotes[qs[-1]].paragraph
        inside, before = defaultdict(int), defaultdict(int)
        for where, start, end in ((inside, ctx.paragraphs[first].start, ctx.paragraphs[last].end),
                                  (before, ctx.paragraphs[max(0, first - 5)].start, ctx.paragraphs[first].start)):
            for m in ctx.mentions_between(start, end):
                if not m.in_quote and len(m.characters) == 1:
                    where[m.characters[0]] += 1
        rank = {c: r for r, c in enumerate(sorted(mass, key=lambda c: -mass[c]))}
        n = len(qs)
        for c in mass:
            out.append((qs, c, [mass[c], mass[c] / n, peak[c], top[c], top[c] / n, cue[c], address[c], inside[c],
                                before[c], n, math.log1p(ctx.total_mentions[c]), cand[c] / n, rank[c],
                                float(ctx.narrator == c)]))
    return out


def participants(books, pre, turns, weights=(0.25, 0.5, 1.0)) -> dict[str, float]:
    from lightgbm import LGBMClassifier
    from sklearn.metrics import roc_auc_score

    rows = {i: participant_rows(b, pre[i]) for i, b in enumerate(books)}
    gold = {i: [int(any(q < len(b.labels) and b.labels[q] == c for q in qs)) for qs, c, _ in rows[i]]
            for i, b in enumerate(books)}
    prob = {}
    for f in range(FOLDS):
        train = [i for i in rows if i % FOLDS != f and rows[i]]
        model = LGBMClassifier(n_estimators=200, num_leaves=15, learning_rate=0.05, min_child_samples=50, n_jobs=1,
                               random_state=0, verbose=-1)
        model.fit(np.array([r[2] for i in train for r in rows[i]]), np.array([y for i in train for y in gold[i]]))
        for i in rows:
            if i % FOLDS == f and rows[i]:
                prob[i] = model.predict_proba(np.array([r[2] for r in rows[i]]))[:, 1]

    def weighted(factor):
        out = {}
        for i in pre:
            dists = [dict(d) for d in pre[i]]
            for k, (qs, c, _) in enumerate(rows[i]):
                for q in qs:
                    if c in dists[q]:
                        dists[q][c] *= factor(i, k)
            out[i] = [{c: v / sum(d.values()) for c, v in d.items()} if sum(d.values()) > 0 else d for d in dists]
        return out

    ys = np.concatenate([gold[i] for i in prob])
    result = {"participant_auc": round(float(roc_auc_score(ys, np.concatenate([prob[i] for i in prob]))), 4)}
    for w in weights:
        result[f"participants w={w}"] = accuracy(books, shipped(books, weighted(lambda i, k: max(prob[i][k], 1e-3) ** w), turns))
    result["participants oracle"] = accuracy(books, shipped(books, weighted(lambda i, k: 1.0 if gold[i][k] else 0.02), turns))
    return result


# ---- per-book priors of turn kinds ------------------------------------------------------

def _cued_kinds(ctx) -> np.ndarray:
    """Add-one counts of repeat / alternate / new among the book's turns whose cues name one character."""
    named = [q.cue_characters[0] if len(q.cue_characters) == 1 else None for q in ctx.quotes]
    counts = np.ones(3)
    for kind in D.turn_labels(D.boundaries(ctx), named):
        if kind is not None:
            counts[kind] += 1
    return counts


def book_priors(books, pre, turns, strengths=(0.5, 1.0)) -> dict[str, float]:
    cued = [_cued_kinds(b.context) for b in books]
    result = {}
    for s in strengths:
        odds = {}
        for i, b in enumerate(books):
            train = sum(cued[j] - 1 for j in range(len(books)) if j % FOLDS != i % FOLDS) + 1
            shift = np.log(cued[i] / cued[i].sum()) - np.log(train / train.sum())
            w = s * cued[i].sum() / (cued[i].sum() + 50)
            odds[i] = {q: lp + w * shift for q, lp in D.change_odds(b.context, turns[i % FOLDS]).items()}
        result[f"book-priors s={s}"] = accuracy(books, shipped(books, pre, turns, odds))
    return result


# ---- three speakers remembered ---------------------------------------------------------

REPEAT, ALTERNATE, THIRD, NEW = range(4)


def _third_bounds(ctx):
    """(boundary, the last quotation of the turn three back or None) for each new turn."""
    conv = ctx.conversations
    firsts = {conv.quotes_of_turn[t][0]: t for t in range(len(conv.quotes_of_turn))}
    out = []
    for b in D.boundaries(ctx):
        t = firsts[b.quote]
        out.append((b, conv.quotes_of_turn[t - 3][-1] if t - 3 >= conv.first_turn[t] else None))
    return out


def _third_labels(bounds, labels):
    def gold(i):
        return labels[i] if i is not None and i < len(labels) else None

    kinds = D.turn_labels([b for b, _ in bounds], labels)
    out = []
    for kind, (bound, third) in zip(kinds, bounds):
        if kind != D.NEW:
            out.append(kind)  # REPEAT and ALTERNATE keep their numbers; None stays None
        elif third is not None and gold(third) is None:
            out.append(None)
        else:
            out.append(THIRD if third is not None and gold(third) == gold(bound.quote) else NEW)
    return out


def _third_odds(ctx, model):
    bounds = _third_bounds(ctx)
    if not bounds:
        return {}
    proba = np.zeros((len(bounds), 4))
    proba[:, model.classes_] = model.predict_proba(D.turn_rows(ctx, [b for b, _ in bounds]))
    logp = np.log(np.maximum(proba, 1e-4))
    return {b.quote: logp[r] for r, (b, _) in enumerate(bounds)}


def _third_marginals(ctx, dists, odds, params=D.TurnTaking()):
    """Forward-backward over (speaker, last turn's speaker, the one before), as D.turn_taking over two."""
    lse = D._logsumexp
    out = [dict(d) for d in dists]
    turn = ctx.conversations.turn_of
    for run in D._runs(ctx, dists):
        cands, emit = [], []
        for i in run:
            top = sorted(((c, p) for c, p in dists[i].items() if p > 0), key=lambda kv: -kv[1])[:D.TOP]
            cands.append(np.array([c for c, _ in top]))
            q = ctx.quotes[i]
            w = params.own_named if q.cue_characters else params.own_pronoun if q.cue_pronoun else params.own
            emit.append(w * np.log(np.maximum([p for _, p in top], D._FLOOR)))
        nobody = np.array([-1])
        second, third = nobody, nobody
        fwd, steps = [emit[0][:, None, None]], [None]
        for s in range(1, len(run)):
            now, last = cands[s], cands[s - 1]
            if turn[run[s]] == turn[run[s - 1]]:
                move = np.where(now[:, None] == last[None, :], 0.0, params.switch_in_paragraph)[:, :, None, None]
                fwd.append(emit[s][:, None, None] + lse(fwd[-1][None] + move, axis=1))
                steps.append((True, move))
                continue
            lp = odds.get(run[s], np.log(np.full(4, 0.25)))
            x, a, b, c = now[:, None, None, None], last[None, :, None, None], second[None, None, :, None], third[None, None, None, :]
            move = np.where(x == a, lp[REPEAT], np.where(x == b, lp[ALTERNATE], np.where(x == c, lp[THIRD], lp[NEW])))
            addressed = {v for j in ctx.conversations.quotes_of_turn[turn[run[s - 1]]] for v in ctx.quotes[j].vocatives}
            if addressed:
                move = move + params.answers_address * np.isin(now, list(addressed))[:, None, None, None]
            second, third = last, second
            fwd.append(emit[s][:, None, None] + lse(fwd[-1][None] + move, axis=3))
            steps.append((False, move))
        back = [np.zeros_like(f) for f in fwd]
        for s in range(len(run) - 1, 0, -1):
            same, move = steps[s]
            nxt = back[s] + emit[s][:, None, None]
            back[s - 1] = lse(move + (nxt[:, None] if same else nxt[:, :, :, None]), axis=0)
        for s, i in enumerate(run):
            m = lse(lse(fwd[s] + back[s], axis=2), axis=1)
            p = np.exp(m - m.max())
            out[i] = {c: 0.0 for c in dists[i]}
            out[i].update({int(c): float(v) for c, v in zip(cands[s], p / p.sum())})
    return out


def three_back(books, pre) -> dict[str, float]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    answers = {}
    for f in range(FOLDS):
        xs, ys = [], []
        for i, b in enumerate(books):
            if i % FOLDS == f:
                continue
            bounds = _third_bounds(b.context)
            kinds = _third_labels(bounds, b.labels)
            keep = [k for k, y in enumerate(kinds) if y is not None]
            xs.append(D.turn_rows(b.context, [bounds[k][0] for k in keep]))
            ys.extend(kinds[k] for k in keep)
        model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=50,
                                               random_state=0).fit(np.vstack(xs), np.asarray(ys))
        for i, b in enumerate(books):
            if i % FOLDS == f:
                answers[i] = _third_marginals(b.context, pre[i], _third_odds(b.context, model))
    return {"three-back": accuracy(books, answers)}


def top(books, pre, turns, sizes=(3, 4, 6, 8)) -> dict[str, float]:
    shipped_top = D.TOP
    result = {}
    try:
        for n in sizes:
            D.TOP = n
            result[f"top={n}"] = accuracy(books, shipped(books, pre, turns))
    finally:
        D.TOP = shipped_top
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdnc", default=str(REPO.parent / "shared" / "data" / "pdnc"))
    parser.add_argument("--fold-models", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/litlens_turn_screen.pkl"),
                        help="the last-pass probabilities (delete it after retraining the fold models)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    books = [service.load_novel(d).prepared for d in pdnc_novel_dirs(args.pdnc)]
    pre, turns = last_pass(books, args.fold_models, args.cache)
    result = {"shipped": accuracy(books, shipped(books, pre, turns))}
    for variant in (lambda: participants(books, pre, turns), lambda: book_priors(books, pre, turns),
                    lambda: three_back(books, pre), lambda: top(books, pre, turns)):
        with _cpu_share():
            result.update(variant())
        print(json.dumps(result), file=sys.stderr, flush=True)
    result["seconds"] = round(time.perf_counter() - started, 1)
    for name, value in result.items():
        print(f"{name:28} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
