"""Keep or drop a candidate quotation: hand rules against trees learned from PDNC, by
leave-novels-out cross-validation (issue 41).

For each of the 20 PDNC novels, runs the product's detection up to the not-speech decision
(:func:`litlens.quotes.detect.detect_candidates`, on the structure ``litlens eval quotes``
builds: paragraphs, chapters and spaCy PERSON mentions, cached as JSON in ``--cache-dir``),
and labels each candidate quotation true when a gold quotation matches it (IoU >= 0.5).
Then it scores, with the product's matching (:func:`litlens.quotes.evaluate.score_quotations`)
on the finished quotation lists (songs included):

* ``rules``: the hand-written chain (:func:`litlens.quotes.keep.rule_keeps`);
* ``rules without R``: the chain with one rule switched off, on all 20 novels and on the
  two halves of ``eval_quotes_dev.TUNE`` (the rules were written while reading all 20, so
  no half of them is truly unseen: a rule that does not help on both halves is not kept);
* ``learned``: LightGBM trees over the rules' signals and the candidate's shape
  (:data:`litlens.quotes.keep.FEATURES`) deciding the candidates in question
  (:func:`litlens.quotes.keep.in_question`; every other one is kept), each novel scored by
  trees trained on the other 19 (leave-one-novel-out); ``--ablate-learned`` also retrains
  without each signal (5 folds of 4 novels);
* ``--joins``: trees deciding each boundary between two segments of a paragraph
  (:mod:`litlens.quotes.joins`) against the grouping rules, leave-one-novel-out, with the
  not-speech decision by rule.

Usage:
  .venv/bin/python benchmarks/quote_filter_cv.py                # table, rules vs learned
  .venv/bin/python benchmarks/quote_filter_cv.py --ablate --joins  # + each rule off, + learned joins
  .venv/bin/python benchmarks/quote_filter_cv.py --save         # + train on all 20, write resources/quote_keep.txt
  .venv/bin/python benchmarks/quote_filter_cv.py --json out.json
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from eval_quotes_dev import TUNE  # noqa: E402

from litlens.model import Chapter, EntityMention, Paragraph, Quotation  # noqa: E402
from litlens.quotes.detect import assemble_quotations, detect_candidates  # noqa: E402
from litlens.quotes.evaluate import pool_scores, quotation_iou, score_quotations  # noqa: E402
from litlens.quotes.joins import JOIN_FEATURES, boundaries  # noqa: E402
from litlens.quotes.keep import FEATURES, MODEL_FILE, SIGNALS, in_question, rule_keeps  # noqa: E402
from litlens.quotes.pdnc import read_pdnc_quotations  # noqa: E402
from litlens.text.ingest import read_book  # noqa: E402

PDNC = REPO.parent / "shared" / "data" / "pdnc"
PARAMS = {
    "objective": "binary",
    "learning_rate": 0.05,
    "num_leaves": 7,
    "min_data_in_leaf": 20,
    "feature_fraction": 0.9,
    "bagging_fraction": 0.9,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "seed": 41,
    "deterministic": True,
    "num_threads": 1,
    "verbose": -1,
}
ROUNDS = 200


def structure_for(novel: Path, text: str, cache_dir: Path) -> tuple[list[Paragraph], list[Chapter], list[EntityMention]]:
    """The structure ``litlens eval quotes`` builds for ``novel`` (spaCy once, then cached)."""
    cache = cache_dir / f"{novel.name}.json"
    if not cache.exists():
        from litlens.text import build_structure

        s = build_structure(text)
        cache_dir.mkdir(parents=True, exist_ok=True)
        data = {"paragraphs": [asdict(p) for p in s.paragraphs], "chapters": [asdict(c) for c in s.chapters], "persons": [asdict(m) for m in s.persons]}
        cache.write_text(json.dumps(data))
    data = json.loads(cache.read_text())
    return (
        [Paragraph(**p) for p in data["paragraphs"]],
        [Chapter(**c) for c in data["chapters"]],
        [EntityMention(**m) for m in data["persons"]],
    )


class Novel:
    """One novel's candidates, labels and everything needed to score a decision on them."""

    def __init__(self, novel: Path, cache_dir: Path):
        self.name = novel.name
        raw = read_book(novel / "novel_text.txt").text  # read as `litlens eval quotes` reads it
        paragraphs, self.chapters, persons = structure_for(novel, raw, cache_dir)
        self.raw, self.paragraphs, self.persons = raw, paragraphs, persons
        self.gold = read_pdnc_quotations(novel / "quotation_info.csv")
        self.state = detect_candidates(raw, paragraphs, persons)
        self.x = np.array([c.features for c in self.state.candidates], dtype=float).reshape(-1, len(FEATURES))
        self.y = np.array([self._matches(c) for c in self.state.candidates], dtype=int)
        self.asked = np.array([in_question(c) for c in self.state.candidates], dtype=bool)

    def join_data(self) -> None:
        """Every boundary the grouping rules decide, labelled by PDNC: are the two segments
        pieces of one gold quotation? (Unlabelled when either piece is in none.)"""
        spans = sorted((a, b, gi) for gi, g in enumerate(self.gold) for a, b in g.spans)
        starts = [a for a, _, _ in spans]

        def gold_of(seg) -> int | None:
            k = bisect.bisect_left(starts, seg.end)
            best, best_overlap = None, 0
            for a, b, gi in spans[max(0, k - 4) : k]:
                overlap = min(b, seg.end) - max(a, seg.start)
                if overlap > best_overlap:
                    best, best_overlap = gi, overlap
            return best

        segs, bounds = boundaries(self.state.text, [c.group for c in self.state.candidates], self.state.paragraphs, self.state.names)
        ids = [gold_of(s) for s in segs]
        self.jx = np.array([b.features for b in bounds], dtype=float).reshape(-1, len(JOIN_FEATURES))
        self.jlabelled = np.array([ids[b.index] is not None and ids[b.index + 1] is not None for b in bounds], dtype=bool)
        self.jy = np.array([ids[b.index] is not None and ids[b.index] == ids[b.index + 1] for b in bounds], dtype=int)
        self.jrule = np.array([b.joined for b in bounds], dtype=int)

    def score_joins(self, decide) -> dict:
        """Score with the boundaries decided by ``decide`` and the not-speech rules."""
        found = detect_candidates(self.raw, self.paragraphs, self.persons, joins=decide)
        return score_quotations(self.gold, assemble_quotations(found, [rule_keeps(c.cue, c.signals) for c in found.candidates], self.chapters))

    def _matches(self, c) -> bool:
        q = Quotation(spans=[(s.start, s.end) for s in c.group])
        starts = [g.start for g in self.gold_sorted]
        k = bisect.bisect_left(starts, q.start - 20_000)
        for g in self.gold_sorted[k:]:
            if g.start >= q.end:
                break
            if g.end > q.start and quotation_iou(g, q) >= 0.5:
                return True
        return False

    @property
    def gold_sorted(self) -> list[Quotation]:
        if not hasattr(self, "_gold_sorted"):
            self._gold_sorted = sorted(self.gold, key=lambda g: g.start)
        return self._gold_sorted

    def decide(self, booster, threshold: float = 0.5, cols: list[int] | None = None) -> list[bool]:
        """Keep every candidate not in question; ask the trees about the others."""
        kept = np.ones(len(self.y), dtype=bool)
        if self.asked.any():
            x = self.x[self.asked] if cols is None else self.x[self.asked][:, cols]
            kept[self.asked] = booster.predict(x) >= threshold
        return kept.tolist()

    def score(self, kept: list[bool]) -> dict:
        return score_quotations(self.gold, assemble_quotations(self.state, kept, self.chapters))


def _train(x: np.ndarray, y: np.ndarray, rounds: int = ROUNDS):
    import lightgbm as lgb

    names = list(FEATURES) if x.shape[1] == len(FEATURES) else "auto"
    return lgb.train(PARAMS, lgb.Dataset(x, label=y, feature_name=names), num_boost_round=rounds)


def _table(title: str, scores: dict[str, dict]) -> dict:
    pooled = pool_scores(list(scores.values()))
    worst = min(scores, key=lambda n: scores[n]["f1"])
    halves = {h: pool_scores([s for n, s in scores.items() if (n in TUNE) == (h == "tune")])["f1"] for h in ("tune", "holdout")}
    print(
        f"{title:<34} P {pooled['precision']:.4f} R {pooled['recall']:.4f} F1 {pooled['f1']:.4f} type {pooled['type_accuracy']:.4f}"
        f"  worst {worst} {scores[worst]['f1']:.4f}  tune-half {halves['tune']:.4f} holdout-half {halves['holdout']:.4f}"
    )
    return {"pooled": pooled, "worst": [worst, scores[worst]["f1"]], "halves": halves, "novels": scores}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_quote_cv"))
    ap.add_argument("--ablate", action="store_true", help="also score the rules with each one switched off")
    ap.add_argument("--ablate-learned", action="store_true", help="also retrain without each signal (slow)")
    ap.add_argument("--save", action="store_true", help=f"train on all novels and write {MODEL_FILE}")
    ap.add_argument("--json", type=Path, help="write every figure to this file")
    ap.add_argument("--joins", action="store_true", help="also learn the join / split decisions between two segments")
    ap.add_argument("--novels", help="comma-separated novel names (default: every PDNC novel)")
    args = ap.parse_args()

    t0 = time.time()
    wanted = set(args.novels.split(",")) if args.novels else None
    dirs = [d for d in sorted(PDNC.iterdir()) if (d / "quotation_info.csv").is_file() and (wanted is None or d.name in wanted)]
    novels = [Novel(d, args.cache_dir) for d in dirs]
    n = sum(len(v.y) for v in novels)
    print(f"{len(novels)} novels, {n} candidates ({int(sum(v.y.sum() for v in novels))} match gold) in {time.time() - t0:.0f} s")
    report: dict = {}

    rules = {v.name: v.score([rule_keeps(c.cue, c.signals) for c in v.state.candidates]) for v in novels}
    report["rules"] = _table("rules (as shipped before)", rules)

    if args.ablate:
        report["rules_without"] = {}
        for rule in SIGNALS:
            off = frozenset({rule})
            s = {v.name: v.score([rule_keeps(c.cue, c.signals, off) for c in v.state.candidates]) for v in novels}
            report["rules_without"][rule] = _table(f"rules without {rule}", s)

    asked = sum(int(v.asked.sum()) for v in novels)
    asked_true = sum(int(v.y[v.asked].sum()) for v in novels)
    print(f"{asked} candidates in question ({asked_true} match gold); the trees decide those, every other one is kept")
    learned: dict[str, dict] = {}
    boosters = {}
    for v in novels:
        train = [u for u in novels if u is not v]
        boosters[v.name] = _train(np.vstack([u.x[u.asked] for u in train]), np.concatenate([u.y[u.asked] for u in train]))
        learned[v.name] = v.score(v.decide(boosters[v.name]))
    report["learned"] = _table("learned (leave-one-novel-out)", learned)
    for t in (0.3, 0.4, 0.6, 0.7):
        s = {v.name: v.score(v.decide(boosters[v.name], t)) for v in novels}
        report[f"learned_threshold_{t}"] = _table(f"learned, threshold {t}", s)

    if args.ablate_learned:
        folds = [novels[k::5] for k in range(5)]
        report["learned_without"] = {}
        for drop in (None, *SIGNALS):
            cols = [i for i, f in enumerate(FEATURES) if f != drop]
            s = {}
            for fold in folds:
                train = [u for u in novels if u not in fold]
                booster = _train(np.vstack([u.x[u.asked][:, cols] for u in train]), np.concatenate([u.y[u.asked] for u in train]))
                for v in fold:
                    s[v.name] = v.score(v.decide(booster, cols=cols))
            report["learned_without"][drop or "-"] = _table(f"learned 5-fold without {drop or '-'}", s)

    if args.joins:
        for v in novels:
            v.join_data()
        lab = np.concatenate([v.jlabelled for v in novels])
        y, rule = np.concatenate([v.jy for v in novels])[lab], np.concatenate([v.jrule for v in novels])[lab]
        print(f"\n{len(lab)} boundaries the grouping rules decide, {int(lab.sum())} labelled; PDNC joins {int(y.sum())},"
              f" the rules join {int(rule.sum())} and agree with PDNC on {float((y == rule).mean()):.4f}")
        same = {v.name: v.score_joins(lambda bs: [b.joined for b in bs]) for v in novels}
        assert all(same[n] == rules[n] for n in same), "regrouping with the rules' own decisions must change nothing"
        joined: dict[str, dict] = {}
        agree = []
        for v in novels:
            train = [u for u in novels if u is not v]
            booster = _train(np.vstack([u.jx[u.jlabelled] for u in train]), np.concatenate([u.jy[u.jlabelled] for u in train]))
            if len(v.jy):
                agree.append((booster.predict(v.jx[v.jlabelled]) >= 0.5).astype(int) == v.jy[v.jlabelled])

            def decide(bs, booster=booster):
                return (booster.predict(np.array([b.features for b in bs], dtype=float)) >= 0.5).tolist() if bs else []

            joined[v.name] = v.score_joins(decide)
        print(f"learned boundaries agree with PDNC on {float(np.concatenate(agree).mean()):.4f} (leave-one-novel-out)")
        report["joins_learned"] = _table("joins learned, keep by rules", joined)
        report["joins_boundaries"] = {"decided": int(len(lab)), "labelled": int(lab.sum()), "pdnc_joins": int(y.sum()),
                                      "rules_agree": float((y == rule).mean()), "learned_agree": float(np.concatenate(agree).mean())}

    print("\nper novel        rules F1  learned F1   (type acc rules / learned)")
    for name in sorted(rules):
        r, l = rules[name], learned[name]
        print(f"{name:<30} {r['f1']:.4f}  {l['f1']:.4f}   {r['type_accuracy']:.4f} / {l['type_accuracy']:.4f}")

    if args.save:
        booster = _train(np.vstack([v.x[v.asked] for v in novels]), np.concatenate([v.y[v.asked] for v in novels]))
        MODEL_FILE.write_text(booster.model_to_string(), encoding="utf-8")
        print(f"wrote {MODEL_FILE} ({MODEL_FILE.stat().st_size} bytes)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True))
    print(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
