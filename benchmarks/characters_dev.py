"""Character discovery measured against the PDNC gold characters, the way a scholar feels it.

Default mode (issue 44): each novel goes through the product's own pipeline once — the
spaCy pass (:func:`litlens.text.build_structure`) and quotation detection — cached under
``--cache-dir`` (``/tmp/litlens_chars``), so that only discovery is re-run while
iterating (the cache also holds detection fixed between a "before" and an "after").
Discovered entries stand for gold characters as in ``litlens eval attribution``
(:func:`~litlens.attribution.evaluate.map_discovered_to_gold`). Over the gold characters
who speak at least 10 quotations (placeholders such as ``_group`` excluded):

* ``found``: some discovered entry stands for the character;
* ``split``: two or more discovered entries stand for it (the scholar must merge them);
* ``joined`` (over all entries): entries holding names that PDNC gives to two or more
  characters, each name to one of them alone ("Miss Bingley" and "Charles"): two people the
  scholar must pull apart, the opposite of a split (PDNC's own alias slips count too);
* ``gender``: the entry with the most mentions among those standing for a found
  character has its gold gender (M/F only; "unknown" counts as wrong);
* ``nonchar`` (with ``--e2e``): share of detected quotations the attributor gives to an
  entry that stands for no gold character (a place, a sentence opening, a misread name);
* ``e2e`` (with ``--e2e``): seed-003 speaker accuracy with detected quotations and
  discovered characters, each novel scored by a CPU ranker trained (gold quotations and
  characters) on the other folds of the same 5-fold leave-novels-out split as the CLI
  (novel i in fold i mod 5). Fold models are cached too: they do not depend on discovery.
  ``--fold-rankers DIR`` reads them instead from ``DIR/fold<i>.zip``, written by
  ``litlens train attributor --novels <the other folds' novels>`` (the full shipped
  ranker; the pickled cache is the same ranker trained in this process).

Discovery runs as shipped (name rules, then the learned steps with
``resources/characters_model.json``, which saw all 20 novels: in-sample); ``--rules-only``
leaves the learned steps out. Their cross-validated figures come from
``benchmarks/characters_train.py``.

``--suggest`` also scores the merge suggestions (:func:`~litlens.quotes.characters.suggest_merges`,
``litlens characters --suggest``) for each discovered list: how many, how many pair two
entries of one PDNC character, and how many split speaking characters a right one reaches.

``--aliases`` gives the older table (alias precision against PDNC alias lists, on gold
quotations and the cached PERSON mentions).

The PDNC folder is ``../shared/data/pdnc`` beside the checkout, or ``$LITLENS_PDNC``.

Usage:  .venv/bin/python benchmarks/characters_dev.py [--novel NAME]... [--e2e] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from litlens.model import EntityMention, Quotation  # noqa: E402
from litlens.quotes.characters import discover_characters  # noqa: E402

PDNC = Path(os.environ.get("LITLENS_PDNC", REPO.parent / "shared" / "data" / "pdnc"))


def persons_for(novel: Path, text: str, cache_dir: Path) -> list[EntityMention]:
    cache = cache_dir / f"{novel.name}.json"
    if not cache.exists():
        from litlens.text.paragraphs import find_paragraphs
        from litlens.text.sentences import analyze

        _, mentions = analyze(text, find_paragraphs(text))  # the ingest pipeline's own pass
        found = [[m.start, m.end, m.text] for m in mentions]
        cache_dir.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(found))
    return [EntityMention(s, e, t) for s, e, t in json.loads(cache.read_text())]


def normal(alias: str) -> str:
    alias = re.sub(r"\s+-\s+\w+$", "", alias)  # "Christopher Robin - Story"
    alias = re.sub(r"['’]s$", "", alias.strip())
    alias = re.sub(r"\s+", " ", alias.replace(".", " ")).strip().lower()
    return re.sub(r"^(the|a|an) ", "", alias)


def load_gold(novel: Path) -> tuple[dict, Counter]:
    """Gold characters by normalised main name: aliases, gender; and quotation counts."""
    gold: dict[str, dict] = {}
    with open(novel / "character_info.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name = row["Main Name"]
            if name.startswith("_"):
                continue
            aliases = {normal(a) for a in ast.literal_eval(row["Aliases"])} | {normal(name)}
            entry = gold.setdefault(normal(name), {"name": name, "aliases": set(), "gender": row["Gender"]})
            entry["aliases"] |= aliases
    quotes: Counter = Counter()
    with open(novel / "quotation_info.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if not row["speaker"].startswith("_"):
                key = normal(row["speaker"])
                if key not in gold:  # a speaker named by an alias ("Lucy" for Miss Honeychurch)
                    owners = [g for g, entry in gold.items() if key in entry["aliases"]]
                    if len(owners) == 1:
                        key = owners[0]
                    else:
                        gold[key] = {"name": row["speaker"], "aliases": {key}, "gender": "?"}
                quotes[key] += 1
    return gold, quotes


def load_quotations(novel: Path) -> list[Quotation]:
    out = []
    with open(novel / "quotation_info.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            spans = [tuple(s) for s in json.loads(row["quoteByteSpans"])]
            out.append(Quotation(spans=spans, speaker=row["speaker"], origin="gold"))
    return out


def evaluate_aliases(novel: Path, cache_dir: Path, show: int = 0) -> dict:
    text = (novel / "novel_text.txt").read_text(encoding="utf-8")
    persons = persons_for(novel, text, cache_dir / "persons")
    gold, quotes = load_gold(novel)
    t0 = time.perf_counter()
    characters = discover_characters(text, persons, load_quotations(novel))
    seconds = time.perf_counter() - t0
    big = [k for k, n in quotes.items() if n >= 10]
    discovered = [(c, {normal(a) for a in c.aliases}) for c in characters]
    pairs = []
    for g in big:
        for i, (c, aliases) in enumerate(discovered):
            overlap = len(aliases & gold[g]["aliases"])
            if overlap:
                pairs.append((-(g in aliases), -overlap, -c.mention_count, g, i))
    pairs.sort()
    matched: dict[str, int] = {}
    used: set[int] = set()
    for *_, g, i in pairs:
        if g not in matched and i not in used:
            matched[g] = i
            used.add(i)
    owner = {}
    for g, entry in gold.items():
        for a in entry["aliases"]:
            owner.setdefault(a, set()).add(g)
    correct = conflict = total = 0
    gender_ok = gender_n = gender_unknown = 0
    for g, i in matched.items():
        c, aliases = discovered[i]
        for a in aliases:
            total += 1
            if a in gold[g]["aliases"]:
                correct += 1
            elif a in owner:
                conflict += 1
        if gold[g]["gender"] in ("M", "F"):
            gender_n += 1
            gender_ok += {"M": "male", "F": "female"}[gold[g]["gender"]] == c.gender
            gender_unknown += c.gender == "unknown"
    result = {
        "novel": novel.name,
        "gold_big": len(big),
        "found": len(matched),
        "alias_total": total,
        "alias_correct": correct,
        "alias_conflict": conflict,
        "gender_n": gender_n,
        "gender_ok": gender_ok,
        "gender_unknown": gender_unknown,
        "n_found": len(characters),
        "n_gold": len(gold),
        "seconds": seconds,
        "matches": {gold[g]["name"]: discovered[i][0].name for g, i in sorted(matched.items())},
        "missed": sorted(gold[g]["name"] for g in big if g not in matched),
        "wrong_gender": sorted(f"{gold[g]['name']}={discovered[i][0].gender}" for g, i in matched.items()
                               if gold[g]["gender"] in ("M", "F")
                               and {"M": "male", "F": "female"}[gold[g]["gender"]] != discovered[i][0].gender),
        "conflicts": sorted({f"{a}->{gold[g]['name']}" for g, i in matched.items() for a in discovered[i][1]
                             if a not in gold[g]["aliases"] and a in owner}),
    }
    if show:
        for c in characters[:show]:
            print(f"  {c.mention_count:5d} {c.quote_count:4d} {c.gender:8s} {c.name!r:28} {c.aliases[1:]} "
                  f"{'amb=' + str(c.ambiguous_aliases) if c.ambiguous_aliases else ''}")
    return result


def ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "  -  "


# --------------------------------------------------------------------------- issue 44 figures

FOLDS = 5


def structure_for(novel: Path, text: str, cache_dir: Path):
    """The product's spaCy pass and detected quotations for one novel, cached."""
    import pickle

    from litlens.quotes.detect import detect_quotations
    from litlens.text import build_structure

    cache = cache_dir / "structure" / f"{novel.name}.pkl"
    if not cache.exists():
        structure = build_structure(text)
        detected = sorted(detect_quotations(text, structure.paragraphs, structure.chapters, structure.persons),
                          key=lambda q: (q.start, q.end))
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps((structure, detected)))
        tmp.replace(cache)
    return pickle.loads(cache.read_bytes())


def fold_of(novel: Path) -> int:
    """The novel's fold in the CLI's split (novel i of the sorted folder in fold i mod 5)."""
    return [d.name for d in sorted(p for p in PDNC.iterdir() if p.is_dir())].index(novel.name) % FOLDS


def fold_discovery(novel: Path, cv_characters: Path | None, cache_dir: Path):
    """The cached NLP pass of ``novel`` and the learned character steps to discover it with:
    its fold's (``cv_characters/fold<i>.json``, trained without it), or the shipped ones."""
    from litlens.quotes.learned import CharacterModel
    from litlens.text.ingest import read_book

    structure, _ = structure_for(novel, read_book(novel / "novel_text.txt").text, cache_dir)
    model = CharacterModel.load(cv_characters / f"fold{fold_of(novel)}.json") if cv_characters else "default"
    return structure, model


def fold_ranker(novel: Path, cache_dir: Path, rankers: Path | None = None):
    """The CPU ranker of the CLI's 5-fold split that never saw ``novel`` (cached), or the
    one read from ``rankers/fold<i>.zip``."""
    import pickle

    from litlens.attribution.ranker import train_ranker
    from litlens.services.attribution import load_novel

    dirs = sorted(p for p in PDNC.iterdir() if p.is_dir())
    fold = fold_of(novel)
    if rankers is not None:
        from litlens.attribution.cpu import load_model

        return load_model(rankers / f"fold{fold}.zip")
    cache = cache_dir / "folds" / f"fold{fold}.pkl"
    if not cache.exists():
        train = [d for i, d in enumerate(dirs) if i % FOLDS != fold]
        ranker = train_ranker([load_novel(d).prepared for d in train])
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(ranker))
        tmp.replace(cache)
    return pickle.loads(cache.read_bytes())


def score_characters(characters: list, gold: list, gold_chars: list) -> dict:
    """found / split / gender of the speaking characters for one discovered list."""
    from litlens.attribution.context import normalise_alias
    from litlens.attribution.evaluate import MIN_QUOTES, gold_speaker_ids, map_discovered_to_gold

    to_gold = map_discovered_to_gold(characters, gold_chars)
    counts = Counter(s for s in gold_speaker_ids(gold, gold_chars) if s is not None)
    speaking = [g for g, n in counts.items() if n >= MIN_QUOTES and not gold_chars[g].name.startswith("_")]
    entries: dict[int, list[int]] = {}
    for ci, g in enumerate(to_gold):
        if g is not None:
            entries.setdefault(g, []).append(ci)
    found = [g for g in speaking if g in entries]
    split = [g for g in found if len(entries[g]) > 1]
    gender_n = gender_ok = 0
    wrong_gender = []
    for g in found:
        want = {"M": "male", "F": "female"}.get(gold_chars[g].gender or "") or {
            "male": "male", "female": "female"}.get(gold_chars[g].gender or "")
        if not want:
            continue
        top = max(entries[g], key=lambda ci: characters[ci].mention_count)
        gender_n += 1
        gender_ok += characters[top].gender == want
        if characters[top].gender != want:
            wrong_gender.append(f"{gold_chars[g].name}={characters[top].gender}")
    owners: dict[str, set[int]] = {}
    for gi, g in enumerate(gold_chars):
        for alias in [g.name, *g.aliases]:
            owners.setdefault(normalise_alias(alias), set()).add(gi)
    joined = {}
    for c in characters:
        held: dict[int, list[str]] = {}
        for alias in c.aliases:
            own = owners.get(normalise_alias(alias), set())
            if len(own) == 1:
                held.setdefault(next(iter(own)), []).append(alias)
        if len(held) > 1:
            joined[c.name] = {gold_chars[g].name: names for g, names in held.items()}
    return {
        "speaking": len(speaking),
        "found": len(found),
        "split": len(split),
        "joined": len(joined),
        "joins": joined,
        "gender_n": gender_n,
        "gender_ok": gender_ok,
        "entries": len(characters),
        "entries_no_character": sum(g is None for g in to_gold),
        "missed": sorted(gold_chars[g].name for g in speaking if g not in entries),
        "splits": {gold_chars[g].name: [characters[ci].name for ci in entries[g]] for g in split},
        "wrong_gender": sorted(wrong_gender),
    }


def evaluate(novel: Path, cache_dir: Path, e2e: bool = False, show: int = 0, model="default",
             rankers: Path | None = None, suggest: bool = False) -> dict:
    """The four figures of issue 44 (and, with ``e2e``, the end-to-end speaker accuracy).

    ``model``: the learned steps discovery uses ("default": the bundled
    ``resources/characters_model.json``; None: the name rules alone; or a fold's model).
    """
    from litlens.attribution.context import build_context
    from litlens.attribution.evaluate import (
        attribution_rows,
        map_discovered_to_gold,
        predictions_for_gold,
        score_rows,
    )
    from litlens.attribution.ranker import prepare
    from litlens.quotes.pdnc import read_pdnc_characters, read_pdnc_quotations
    from litlens.text.ingest import read_book

    text = read_book(novel / "novel_text.txt").text
    structure, detected = structure_for(novel, text, cache_dir)
    gold = sorted(read_pdnc_quotations(novel / "quotation_info.csv"), key=lambda q: (q.start, q.end))
    gold_chars = read_pdnc_characters(novel / "character_info.csv")
    t0 = time.perf_counter()
    characters = discover_characters(text, structure.persons, detected, model=model)
    seconds = time.perf_counter() - t0
    result = {"novel": novel.name, **score_characters(characters, gold, gold_chars), "seconds": round(seconds, 2)}
    to_gold = map_discovered_to_gold(characters, gold_chars)
    if suggest:
        result.update(score_suggestions(text, structure.persons, detected, characters, to_gold, gold, gold_chars, model))
    if e2e:
        ranker = fold_ranker(novel, cache_dir, rankers)
        context = build_context(text, structure.paragraphs, detected, characters, None,
                                [c.start for c in structure.chapters])
        predictions = ranker.predict(prepare(novel.name, context, []))
        answers = [to_gold[best] if best is not None else None for best, _ in predictions]
        given = [best for best, _ in predictions if best is not None]
        nonchar = Counter(characters[b].name for b in given if to_gold[b] is None)
        result["quotations_given"] = len(given)
        result["quotations_nonchar"] = sum(nonchar.values())
        result["nonchar_entries"] = dict(nonchar.most_common(8))
        names = [gold_chars[g].name if g is not None else None for g in answers]
        rows = attribution_rows(gold, predictions_for_gold(gold, detected, names), gold_chars)
        result["e2e_scored"] = len(rows)
        result["e2e_correct"] = sum(ok for _, ok in rows)
        result["e2e"] = score_rows(rows)["accuracy"]
    if show:
        for c, g in list(zip(characters, to_gold))[:show]:
            print(f"  {c.mention_count:5d} {c.gender:8s} {c.name!r:28} -> "
                  f"{gold_chars[g].name if g is not None else '-':24} {c.aliases[1:6]}")
    return result


def score_suggestions(text, persons, detected, characters, to_gold, gold, gold_chars, model) -> dict:
    """The merge suggestions (:func:`suggest_merges`) for the discovered list: how many, how
    many join two entries of one PDNC character, and how many split speaking characters
    a right suggestion reaches."""
    from litlens.attribution.evaluate import MIN_QUOTES, gold_speaker_ids
    from litlens.quotes.characters import suggest_merges

    suggestions = suggest_merges(text, persons, detected, characters, model=model)
    counts = Counter(s for s in gold_speaker_ids(gold, gold_chars) if s is not None)
    entries = Counter(g for g in to_gold if g is not None)
    split = {g for g, n in counts.items() if n >= MIN_QUOTES and not gold_chars[g].name.startswith("_") and entries[g] > 1}
    right = [s for s in suggestions if to_gold[s.keep] is not None and to_gold[s.keep] == to_gold[s.fold]]
    return {"suggestions": len(suggestions), "suggestions_right": len(right),
            "splits_reached": len({to_gold[s.keep] for s in right} & split),
            "suggested": [(characters[s.keep].name, characters[s.fold].name, s.probability, s.reason) for s in suggestions]}


FIGURES = ("speaking", "found", "split", "joined", "gender_n", "gender_ok", "quotations_given", "quotations_nonchar",
           "e2e_scored", "e2e_correct", "entries", "entries_no_character", "suggestions", "suggestions_right",
           "splits_reached")


def pooled(results: list[dict]) -> dict:
    total = {k: sum(r.get(k, 0) for r in results) for k in FIGURES}
    total["novel"] = "POOLED"
    if any("e2e" in r for r in results):
        total["e2e"] = round(total["e2e_correct"] / total["e2e_scored"], 4) if total["e2e_scored"] else None
    return total


def row(r: dict) -> str:
    out = (f"{r['novel']:30} {r['found']:3d}/{r['speaking']:<3d} {ratio(r['found'], r['speaking']):>6} "
           f"{ratio(r['split'], r['speaking']):>6} {ratio(r['gender_ok'], r['gender_n']):>6}")
    if "e2e" in r:
        out += f" {ratio(r['quotations_nonchar'], r['quotations_given']):>7} {r['e2e'] if r['e2e'] is not None else '-':>6}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--novel", action="append", help="PDNC folder name (repeatable); default all")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_chars"))
    parser.add_argument("--e2e", action="store_true", help="also attribute end to end (fold models, cached)")
    parser.add_argument("--aliases", action="store_true", help="the older alias-precision table instead")
    parser.add_argument("--rules-only", action="store_true",
                        help="discover with the name rules alone (no learned steps)")
    parser.add_argument("--fold-rankers", type=Path, metavar="DIR",
                        help="--e2e: read each fold's ranker from DIR/fold<i>.zip (litlens train attributor --novels)")
    parser.add_argument("--cv-characters", type=Path, metavar="DIR",
                        help="discover with DIR/fold<i>.json, the fold's learned steps that never saw the novel "
                             "(characters_train.py --fold-models DIR)")
    parser.add_argument("--suggest", action="store_true",
                        help="also score the merge suggestions (suggest_merges): right ones, splits reached")
    parser.add_argument("--show", type=int, default=0, help="print the top N discovered characters")
    parser.add_argument("--verbose", action="store_true", help="print misses, splits and wrong genders")
    parser.add_argument("--json", type=Path, help="write per-novel and pooled figures to this file")
    args = parser.parse_args()
    novels = [PDNC / n for n in args.novel] if args.novel else sorted(p for p in PDNC.iterdir() if p.is_dir())
    if args.aliases:
        main_aliases(novels, args)
        return
    results = []
    print(f"{'novel':30} {'found':>7} {'found%':>6} {'split%':>6} {'gender':>6}" + (" nonchar    e2e" if args.e2e else ""))
    for novel in novels:
        if args.show:
            print(f"== {novel.name}")
        model = None if args.rules_only else fold_discovery(novel, args.cv_characters, args.cache_dir)[1]
        r = evaluate(novel, args.cache_dir, args.e2e, args.show, model, args.fold_rankers, args.suggest)
        results.append(r)
        print(row(r), flush=True)
        if args.suggest:
            print(f"    suggestions: {r['suggestions_right']} right of {r['suggestions']}, "
                  f"{r['splits_reached']} splits reached: {r['suggested']}")
        if args.verbose:
            print(f"    missed: {r['missed']}\n    split: {r['splits']}\n    joined: {r['joins']}\n"
                  f"    gender: {r['wrong_gender']}")
            if "nonchar_entries" in r:
                print(f"    non-characters given quotations: {r['nonchar_entries']}")
    total = pooled(results)
    print(row(total))
    if args.suggest:
        print(f"suggestions: {total['suggestions_right']} right of {total['suggestions']}; "
              f"{total['splits_reached']} of {total['split']} splits reached")
    print(f"entries joining two PDNC characters: {total['joined']}")
    if args.json:
        args.json.write_text(json.dumps({"novels": results, "pooled": total}, indent=1) + "\n")


def main_aliases(novels: list[Path], args: argparse.Namespace) -> None:
    results = []
    for novel in novels:
        if args.show:
            print(f"== {novel.name}")
        results.append(evaluate_aliases(novel, args.cache_dir, args.show))
    header = f"{'novel':30} {'found':>11} {'alias_prec':>10} {'conflict':>8} {'gender':>7} {'unk':>4} {'n/gold':>8} {'sec':>5}"
    print(header)
    for r in results:
        print(f"{r['novel']:30} {r['found']:3d}/{r['gold_big']:3d}={ratio(r['found'], r['gold_big'])} "
              f"{ratio(r['alias_correct'], r['alias_total']):>10} {ratio(r['alias_conflict'], r['alias_total']):>8} "
              f"{ratio(r['gender_ok'], r['gender_n']):>7} {r['gender_unknown']:4d} {r['n_found']:4d}/{r['n_gold']:<3d} {r['seconds']:5.2f}")
        if args.verbose:
            print(f"    matches: {r['matches']}")
            print(f"    missed: {r['missed']}\n    gender: {r['wrong_gender']}\n    conflicts: {r['conflicts']}")
    s = {k: sum(r[k] for r in results) for k in results[0] if isinstance(results[0][k], (int, float))}
    print(f"{'POOLED':30} {s['found']:3d}/{s['gold_big']:3d}={ratio(s['found'], s['gold_big'])} "
          f"{ratio(s['alias_correct'], s['alias_total']):>10} {ratio(s['alias_conflict'], s['alias_total']):>8} "
          f"{ratio(s['gender_ok'], s['gender_n']):>7} {s['gender_unknown']:4d} {s['n_found']:4d}/{s['n_gold']:<3d} {s['seconds']:5.2f}")


if __name__ == "__main__":
    main()
