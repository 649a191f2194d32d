"""Train the learned steps of character discovery, chosen by leave-novels-out CV.

For each PDNC novel: the product's spaCy pass and detected quotations (cached by
``characters_dev.py``), the name rules' entries (:func:`find_entities`), their candidate
pairs and features (:func:`pair_rows`). A pair is labelled "same" when both entries stand
for one PDNC character (the mapping of ``litlens eval attribution``), "different" otherwise;
a pair with an entry that stands for no PDNC character weighs less (the list may not name
a role or a one-off spelling). An entry is labelled "a person" when it stands for a PDNC
character.

Cross-validation: 5 folds, novel i in fold i mod 5 (as the attribution CV). Each fold's
model is trained on the other folds and used on its own novels only. First the pairs: the
held-out entries are joined at each threshold / floor of the grid. Then the entries, after
the chosen joining: left out under each threshold of the person grid. The issue-44 figures
(found, split, gender of speaking characters; entries that stand for no character) are
pooled over the 20 held-out novels; each threshold is the one with the best
:func:`merit` among those that find no fewer speaking characters (joining: the highest
threshold within one speaking character's worth of the best merit) or at most
``FOUND_SLACK`` points fewer (leaving out). The models are then
trained on all novels and saved as data-only JSON.

Usage:  .venv/bin/python benchmarks/characters_train.py [--out resources/characters_model.json]
                                                        [--json benchmarks/results/characters_cv.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from characters_dev import PDNC, score_characters, structure_for  # noqa: E402

from litlens.attribution.train_characters import (  # noqa: E402
    character_book,
    person_data,
    train_booster,
    train_character_model,
)
from litlens.quotes.characters import _build  # noqa: E402
from litlens.quotes.learned import CharacterModel, Decision  # noqa: E402
from litlens.quotes.people import KEEP_FEATURES, keep_entries, speakers  # noqa: E402
from litlens.quotes.same_person import FEATURES, join_pairs  # noqa: E402

FOLDS = 5
GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
FLOORS = (0.0, 0.5)
PERSON_GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
FOUND_SLACK = 1.0  # leaving entries out may cost at most this many points of found (pooled, %)


def load(novel: Path, cache_dir: Path) -> dict:
    from litlens.quotes.pdnc import read_pdnc_characters, read_pdnc_quotations
    from litlens.text.ingest import read_book

    text = read_book(novel / "novel_text.txt").text
    structure, detected = structure_for(novel, text, cache_dir)
    gold = sorted(read_pdnc_quotations(novel / "quotation_info.csv"), key=lambda q: (q.start, q.end))
    book = character_book(novel.name, text, structure.persons, detected, read_pdnc_characters(novel / "character_info.csv"))
    return {"book": book, "weights": book.weights, "name": novel.name, "text": text, "detected": detected,
            "gold": gold, "gold_chars": book.gold_characters, "found": book.found, "pairs": book.pairs,
            "rows": book.rows, "labels": book.labels}


def train(books: list[dict], rows_key: str = "rows", labels_key: str = "labels",
          weights_key: str | None = "weights") -> object:
    return train_booster([b[rows_key] for b in books], [b[labels_key] for b in books],
                         [b[weights_key] for b in books] if weights_key else None,
                         FEATURES if rows_key == "rows" else KEEP_FEATURES)


def characters_for(book: dict, found) -> list:
    # _build appends ambiguous forms to the entries; work on fresh entry objects each time
    from litlens.quotes.aliases import _Entity

    fresh = {id(e): _Entity(list(e.forms), []) for e in found.entities}
    ambiguous = [(f, [fresh[id(c)] for c in cands]) for f, cands in found.ambiguous]
    return _build(book["text"], list(fresh.values()), ambiguous, book["detected"])


def pooled(results: list[dict]) -> dict:
    keys = ("speaking", "found", "split", "joined", "gender_n", "gender_ok", "entries", "entries_no_character")
    total = {k: sum(r[k] for r in results) for k in keys}
    total["found%"] = round(100 * total["found"] / total["speaking"], 1)
    total["split%"] = round(100 * total["split"] / total["speaking"], 1)
    total["joined%"] = round(100 * total["joined"] / total["speaking"], 1)
    total["gender%"] = round(100 * total["gender_ok"] / max(total["gender_n"], 1), 1)
    total["no_character%"] = round(100 * total["entries_no_character"] / max(total["entries"], 1), 1)
    return total


def merit(p: dict) -> float:
    """What a threshold is chosen by: speaking characters found, minus those split, minus
    the entries that join two characters (per speaking character: a wrong join costs the
    scholar as much as a split), minus a tenth of the share of entries that stand for no
    character (all pooled, in %)."""
    return p["found%"] - p["split%"] - p["joined%"] - 0.1 * p["no_character%"]


def cross_validate(books: list[dict], rows_key: str, labels_key: str, weights_key: str | None) -> dict[int, np.ndarray]:
    held: dict[int, np.ndarray] = {}
    for fold in range(FOLDS):
        model = train([b for i, b in enumerate(books) if i % FOLDS != fold], rows_key, labels_key, weights_key)
        for i, b in enumerate(books):
            if i % FOLDS == fold:
                held[i] = Decision(model, 0.0).probabilities(b[rows_key])
    return held


def classifier_cv(books: list[dict], held: dict, labels_key: str) -> dict:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.concatenate([b[labels_key] for b in books])
    p = np.concatenate([held[i] for i in range(len(books))])
    return {"rows": int(len(y)), "positive": int(y.sum()), "auc": round(float(roc_auc_score(y, p)), 4),
            "average_precision": round(float(average_precision_score(y, p)), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_chars"))
    parser.add_argument("--out", type=Path, help="write the models trained on all novels here")
    parser.add_argument("--json", type=Path, help="write the CV figures here")
    parser.add_argument("--fold-models", type=Path, metavar="DIR",
                        help="also write each fold's models (trained on the other folds, with the chosen "
                             "thresholds) as DIR/fold<i>.json, for end-to-end CV (characters_dev.py --cv-characters)")
    args = parser.parse_args()
    novels = sorted(p for p in PDNC.iterdir() if p.is_dir())
    t0 = time.perf_counter()
    books = []
    for novel in novels:
        books.append(load(novel, args.cache_dir))
        b = books[-1]
        print(f"{novel.name:30} {len(b['pairs']):6d} pairs {int(b['labels'].sum()):4d} same", flush=True)
    print(f"features: {time.perf_counter() - t0:.0f} s")

    # 1. same person? (pairs)
    held = cross_validate(books, "rows", "labels", "weights")
    pair_cv = classifier_cv(books, held, "labels")
    print("pairs (CV):", pair_cv)
    grid: dict[str, dict] = {}
    per_novel: dict[str, list] = {}

    def score(key: str, founds: list) -> None:
        results = [{"novel": b["name"], **score_characters(characters_for(b, f), b["gold"], b["gold_chars"])}
                   for b, f in zip(books, founds)]
        grid[key], per_novel[key] = pooled(results), results
        print(f"{key:>16}: {grid[key]}", flush=True)

    score("rules only", [b["found"] for b in books])
    for t in GRID:
        for floor in FLOORS:
            score(f"join {t}/{floor}", [join_pairs(b["found"], b["pairs"], held[i], t, floor)
                                        for i, b in enumerate(books)])
    base = grid["rules only"]
    joins = [k for k in grid if k.startswith("join") and grid[k]["found"] >= base["found"]] or \
        [k for k in grid if k.startswith("join")]
    # the merits of the thresholds differ by about one character's worth, and which is best
    # flips with one entry: take the most cautious threshold within one speaking character
    # (100 / speaking points) of the best, so that a join must earn its place
    top = max(merit(grid[k]) for k in joins)
    best_join = max((k for k in joins if merit(grid[k]) >= top - 100 / base["speaking"]),
                    key=lambda k: (float(k.split()[1].split("/")[0]), k))
    threshold, floor = (float(x) for x in best_join.split()[1].split("/"))
    print(f"chosen join {best_join}")

    # 2. a person? (entries after the held-out joining)
    joined, entry_rows, entry_labels = person_data([b["book"] for b in books], [held[i] for i in range(len(books))],
                                                   threshold, floor)
    for i, b in enumerate(books):
        b["joined"], b["entry_rows"], b["entry_labels"] = joined[i], entry_rows[i], entry_labels[i]
    kept = cross_validate(books, "entry_rows", "entry_labels", None)
    person_cv = classifier_cv(books, kept, "entry_labels")
    print("entries (CV):", person_cv)
    for t in PERSON_GRID:
        score(f"{best_join} + person {t}", [keep_entries(b["joined"], kept[i], t, speakers(b["joined"], b["detected"]))
                                            for i, b in enumerate(books)])
    persons = [k for k in grid if "person" in k and grid[k]["found%"] >= grid[best_join]["found%"] - FOUND_SLACK]
    best = max(persons, key=lambda k: (merit(grid[k]), k)) if persons else best_join
    person_threshold = float(best.split()[-1]) if "person" in best else None
    print(f"chosen {best}: {grid[best]}")
    report = {"pairs": pair_cv, "entries": person_cv, "grid": grid, "chosen": best,
              "per_novel": {k: per_novel[k] for k in ("rules only", best_join, best)}}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str) + "\n")
    if args.out:
        same = Decision(train(books, "rows", "labels", "weights"), threshold, floor)
        person = Decision(train(books, "entry_rows", "entry_labels", None), person_threshold) \
            if person_threshold is not None else None
        meta = {"trained_on": [b["name"] for b in books],
                "cv": {"chosen": best, "figures": grid[best], "rules_only": base, "pairs": pair_cv,
                       "entries": person_cv}}
        args.out.write_text(CharacterModel(same, person, meta).to_json() + "\n")
        print(f"wrote {args.out}")
    if args.fold_models:
        # each fold's steps as `litlens eval attribution --characters discovered` trains them
        args.fold_models.mkdir(parents=True, exist_ok=True)
        for fold in range(FOLDS):
            train_books = [b["book"] for i, b in enumerate(books) if i % FOLDS != fold]
            model = train_character_model(train_books, threshold, floor, person_threshold,
                                          {"trained_on": [b.name for b in train_books], "fold": fold})
            (args.fold_models / f"fold{fold}.json").write_text(model.to_json() + "\n")
        print(f"wrote {FOLDS} fold models to {args.fold_models}")


if __name__ == "__main__":
    main()
