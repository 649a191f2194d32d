"""The shipped CPU attributor's leave-novels-out figures, one fold model file at a time.

``litlens eval attribution --folds 5`` trains the five fold models inside one process, one
after the other (about 25 CPU-minutes each), and forgets them. This script runs the same
cross-validation in pieces that can share a machine and be resumed:

* ``train``: writes ``DIR/fold<i>.zip`` for each fold asked (novel *i* of the sorted PDNC
  folder in fold *i* mod 5, as the CLI), each trained by
  :func:`~litlens.services.attribution.train_attributor` on the other folds' novels (gold
  quotations and characters) — the same call as ``litlens train attributor --novels``, so
  two ``train --fold`` processes can run side by side;
* ``score``: scores every novel with the fold model that never saw it, with gold
  quotations and characters (``--setting gold``) or end to end (``--setting e2e``:
  detected quotations and discovered characters; ``--cv-characters DIR`` discovers each
  novel with the learned steps of ``characters_train.py --fold-models DIR``, which never saw
  it either). The spaCy pass and detection are cached under ``--cache-dir`` as in
  ``characters_dev.py``.

The JSON has the shape of ``litlens eval attribution --json`` (per novel and pooled:
accuracy, explicit, other, anaphoric, implicit, seed-003 convention), plus, end to end,
``nonchar``: the share of detected quotations given to an entry that stands for no PDNC
character.

Usage:
    .venv/bin/python benchmarks/attribution_folds.py train --out /tmp/folds --fold 0 --fold 1
    .venv/bin/python benchmarks/attribution_folds.py score --models /tmp/folds --setting gold --json OUT
    .venv/bin/python benchmarks/attribution_folds.py score --models /tmp/folds --setting e2e \
        --cv-characters /tmp/charfolds --json OUT
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from characters_dev import FOLDS, PDNC, fold_discovery, fold_of  # noqa: E402

from litlens.attribution.cpu import load_model  # noqa: E402
from litlens.attribution.evaluate import score_rows  # noqa: E402
from litlens.services.attribution import load_novel, score_novel, train_attributor  # noqa: E402


def novels() -> list[Path]:
    return sorted(p for p in PDNC.iterdir() if p.is_dir())


def train(out: Path, folds: list[int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for fold in folds:
        names = [d.name for i, d in enumerate(novels()) if i % FOLDS != fold]
        t0 = time.perf_counter()
        train_attributor(PDNC, out / f"fold{fold}.zip", novels=names)
        print(f"fold {fold}: trained on {len(names)} novels in {time.perf_counter() - t0:.0f} s", flush=True)


def fold_novel(d: Path, setting: str, cv_characters: Path | None, cache_dir: Path):
    """The novel as scored: gold quotations and characters, or (``e2e``) detected quotations and
    characters discovered with the learned steps of its own fold."""
    if setting == "gold":
        return load_novel(d)
    structure, model = fold_discovery(d, cv_characters, cache_dir)
    return load_novel(d, quotes="detected", characters="discovered", character_model=model, structure=structure)


def score(models: Path, setting: str, cv_characters: Path | None, cache_dir: Path, only: list[str] | None) -> dict:
    per_novel, rows_all = {}, []
    given_all = nonchar_all = 0
    for d in novels():
        if only and d.name not in only:
            continue
        fold = fold_of(d)
        t0 = time.perf_counter()
        novel = fold_novel(d, setting, cv_characters, cache_dir)
        ranker = load_model(models / f"fold{fold}.zip")
        result = score_novel(novel, ranker)
        figures = score_rows(result.rows)
        if setting != "gold":
            given = [best for best in result.speakers if best is not None]
            nonchar = sum(novel.char_to_gold[b] is None for b in given)
            figures["nonchar"] = round(nonchar / len(given), 4) if given else None
            given_all += len(given)
            nonchar_all += nonchar
        per_novel[d.name] = figures
        rows_all.extend(result.rows)
        print(f"{d.name:30} fold {fold} {figures['accuracy']} explicit {figures['explicit']} "
              f"other {figures['other']}{' nonchar ' + str(figures.get('nonchar')) if setting != 'gold' else ''} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    pooled = score_rows(rows_all)
    if setting != "gold":
        pooled["nonchar"] = round(nonchar_all / given_all, 4) if given_all else None
    return {"setting": setting, "cv_characters": bool(cv_characters), "novels": per_novel, "pooled": pooled}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="write DIR/fold<i>.zip for the folds asked")
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--fold", type=int, action="append", help="fold index (repeatable); default all")
    s = sub.add_parser("score", help="score every novel with the fold model that never saw it")
    s.add_argument("--models", type=Path, required=True, help="folder of fold<i>.zip")
    s.add_argument("--setting", choices=["gold", "e2e"], default="gold")
    s.add_argument("--cv-characters", type=Path, metavar="DIR", help="e2e: fold character models (fold<i>.json)")
    s.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_chars"))
    s.add_argument("--novel", action="append", help="score only these novels (repeatable)")
    s.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    if args.command == "train":
        train(args.out, args.fold if args.fold is not None else list(range(FOLDS)))
        return
    report = score(args.models, args.setting, args.cv_characters, args.cache_dir, args.novel)
    p = report["pooled"]
    print(f"POOLED {p['accuracy']} explicit {p['explicit']} other {p['other']}"
          + (f" nonchar {p['nonchar']}" if "nonchar" in p else ""))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
