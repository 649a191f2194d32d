"""Choose the turn-taking weights of the CPU attributor by split halves, held out.

The last step of :meth:`~litlens.attribution.ranker.SpeakerRanker.distributions` reads a
conversation as a whole (:func:`~litlens.attribution.dialogue.turn_taking`) with five
weights (:class:`~litlens.attribution.dialogue.TurnTaking`): how much a quotation's own
probabilities count (uncued, after a name cue, after a pronoun cue), how unlikely a change of
speaker inside one paragraph is, and how much likelier the one the last turn addressed by
name is to speak next. They do not depend on the trees, so each novel's blended ranker
probabilities and turn odds are computed once, with the fold model that never saw it
(``attribution_folds.py train``), and every setting of the weights is scored on them.

Protocol: the 20 novels are cut into two halves (even and odd positions in the sorted
folder). On each half the weights are chosen by coordinate ascent over :data:`GRID` (two
rounds, starting at the current defaults) on that half's pooled accuracy, then scored on
the other half. The figure to quote is the other half's, pooled over both directions. The
weights chosen on all 20 novels are printed last (what the product would ship).

Usage:
    .venv/bin/python benchmarks/turn_taking_cv.py --models /tmp/folds --setting gold --json OUT
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attribution_folds import fold_novel  # noqa: E402
from characters_dev import PDNC, fold_of  # noqa: E402

from litlens.attribution.cpu import load_model  # noqa: E402
from litlens.attribution.dialogue import TurnTaking, change_odds, turn_taking  # noqa: E402
from litlens.attribution.evaluate import score_rows  # noqa: E402
from litlens.attribution.ranker import _cpu_share, _max_probs, _run_passes, blend  # noqa: E402
from litlens.services.attribution import score_novel  # noqa: E402

GRID = {
    "own": (0.5, 0.75, 1.0, 1.5, 2.0),
    "own_named": (2.0, 4.0, 8.0),
    "own_pronoun": (1.0, 2.0, 3.0, 4.0),
    "switch_in_paragraph": (-2.0, -4.0, -8.0),
    "answers_address": (0.0, 0.5, 1.0, 1.5, 2.0),
}
ROUNDS = 2


class _Cached:
    """Stands in for the ranker in :func:`score_novel`: turn taking with ``params`` over the
    cached blended probabilities and turn odds."""

    def __init__(self, book: dict, params: TurnTaking):
        self.book, self.params = book, params

    def predict(self, prepared):
        dists = turn_taking(prepared.context, self.book["blended"], self.book["odds"], self.params)
        return _max_probs(dists)


def prepare_books(models: Path, setting: str, cv_characters: Path | None, cache_dir: Path) -> list[dict]:
    books = []
    for d in sorted(p for p in PDNC.iterdir() if p.is_dir()):
        t0 = time.perf_counter()
        novel = fold_novel(d, setting, cv_characters, cache_dir)
        ranker = load_model(models / f"fold{fold_of(d)}.zip")
        with _cpu_share():
            blended = blend([_run_passes(learner, ms, novel.prepared) for learner, ms in ranker.passes.items()])
            odds = change_odds(novel.prepared.context, ranker.turns)
        books.append({"name": d.name, "novel": novel, "blended": blended, "odds": odds})
        print(f"{d.name:30} prepared ({time.perf_counter() - t0:.0f} s)", flush=True)
    return books


def accuracy(books: list[dict], params: TurnTaking) -> dict:
    rows = []
    for b in books:
        rows.extend(score_novel(b["novel"], _Cached(b, params)).rows)  # type: ignore[arg-type]
    return score_rows(rows)


def choose(books: list[dict], start: TurnTaking) -> TurnTaking:
    best = start
    best_acc = accuracy(books, best)["accuracy"]
    for _ in range(ROUNDS):
        moved = False
        for name, values in GRID.items():
            for v in values:
                trial = replace(best, **{name: v})
                if trial == best:
                    continue
                acc = accuracy(books, trial)["accuracy"]
                if acc > best_acc:
                    best, best_acc, moved = trial, acc, True
        print(f"  round: {asdict(best)} -> {best_acc}", flush=True)
        if not moved:
            break
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, required=True, help="folder of fold<i>.zip")
    parser.add_argument("--setting", choices=["gold", "e2e"], default="gold")
    parser.add_argument("--cv-characters", type=Path, metavar="DIR")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_chars"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    books = prepare_books(args.models, args.setting, args.cv_characters, args.cache_dir)
    default = TurnTaking()
    halves = [books[0::2], books[1::2]]
    report: dict = {"setting": args.setting, "default": asdict(default), "halves": []}
    held_rows_default, held_rows_chosen = [], []
    for k, (tune, test) in enumerate([(halves[0], halves[1]), (halves[1], halves[0])]):
        print(f"half {k}: choosing on {[b['name'] for b in tune]}", flush=True)
        chosen = choose(tune, default)
        for b in test:
            held_rows_default.extend(score_novel(b["novel"], _Cached(b, default)).rows)  # type: ignore[arg-type]
            held_rows_chosen.extend(score_novel(b["novel"], _Cached(b, chosen)).rows)  # type: ignore[arg-type]
        report["halves"].append({"chosen": asdict(chosen), "tuned_on": [b["name"] for b in tune],
                                 "tune_default": accuracy(tune, default), "tune_chosen": accuracy(tune, chosen),
                                 "held_default": accuracy(test, default), "held_chosen": accuracy(test, chosen)})
        print(f"  held out: default {report['halves'][-1]['held_default']['accuracy']} "
              f"chosen {report['halves'][-1]['held_chosen']['accuracy']}", flush=True)
    report["held_out"] = {"default": score_rows(held_rows_default), "chosen": score_rows(held_rows_chosen)}
    print("held out, both halves:", report["held_out"], flush=True)
    final = choose(books, default)
    report["all_novels"] = {"chosen": asdict(final), "default": accuracy(books, default),
                            "chosen_in_sample": accuracy(books, final)}
    report["per_novel"] = {b["name"]: {"default": accuracy([b], default)["accuracy"],
                                       "chosen": accuracy([b], final)["accuracy"]} for b in books}
    print("chosen on all 20:", report["all_novels"], flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
