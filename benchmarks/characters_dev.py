"""Character discovery measured against the PDNC gold characters.

For each novel the PERSON entities of the ingest pipeline's pass are cached (``--cache-dir``, default
``/tmp/litlens_persons``) so the discovery itself can be iterated on in seconds.

Metrics, over gold characters who speak at least 10 quotations (PDNC's major and
intermediate speakers; placeholders such as ``_group`` excluded):

* ``found``: share matched one-to-one to a discovered character sharing an alias
  (case, periods and a leading "the" ignored);
* ``alias_prec``: share of the matched characters' aliases that are aliases of the same
  gold character (PDNC alias lists are not exhaustive: "Fitzwilliam Darcy" is not
  listed, so this is a lower bound); ``alias_conflict``: share that are aliases of a
  *different* gold character (certainly wrong);
* ``gender_acc``: matched characters whose gold gender is M or F and whose discovered
  gender equals it ("unknown" counts as wrong; ``gender_unknown`` says how often);
* ``n_found`` vs ``n_gold``: discovered characters vs all gold characters.

Usage:  .venv/bin/python benchmarks/characters_dev.py [--novel NAME] [--show N] [--json]
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from litlens.model import EntityMention, Quotation  # noqa: E402
from litlens.quotes.characters import discover_characters  # noqa: E402

PDNC = REPO.parent / "shared" / "data" / "pdnc"


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


def evaluate(novel: Path, cache_dir: Path, show: int = 0) -> dict:
    text = (novel / "novel_text.txt").read_text(encoding="utf-8")
    persons = persons_for(novel, text, cache_dir)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--novel", action="append", help="PDNC folder name (repeatable); default all")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_persons"))
    parser.add_argument("--show", type=int, default=0, help="print the top N discovered characters")
    parser.add_argument("--verbose", action="store_true", help="print misses and conflicts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    novels = [PDNC / n for n in args.novel] if args.novel else sorted(p for p in PDNC.iterdir() if p.is_dir())
    results = []
    for novel in novels:
        if args.show:
            print(f"== {novel.name}")
        results.append(evaluate(novel, args.cache_dir, args.show))
    if args.json:
        print(json.dumps(results, indent=1))
        return
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
