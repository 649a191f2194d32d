"""Character discovery and speakers when the characters bear names that are also words.

Unseen novels name people "May" (May Welland), "Grace" (Grace Poole), "Will", "Hope",
"Mr. Young" or "Mr. Hall": words that the book also writes in lower case ("may", "will"),
months, or the last word of place names ("Thornfield Hall"); "O'Brien", "Grant-Menzies" and
"Mr. van der Luyden", whose apostrophes, hyphens and particles the name patterns must read,
and "Zoë" or "Renée", whose accented letters they must keep. The 20 PDNC novels we have
name few people so, so their figures say little about it. This benchmark renames characters
of a few dev novels with such words and scores the renamed copies exactly as the originals.

Each replacement has the length of the name it replaces ("Lydia" -> "April", "Darcy" ->
"Young"), so PDNC's character offsets stay valid; the text, the quotations, the referring
expressions, the speakers and the character lists are rewritten with whole-word
replacement. The copies go to ``--work`` beside symbolic links to the other novels (so each
novel keeps its fold), with their own spaCy cache. Then, for the original and the renamed
copy of each novel: the character figures of ``characters_dev.py`` (found, split, gender of
the speaking characters) and the speaker accuracy of ``attribution_folds.py score``, with
gold quotations and characters and end to end, with the fold models that never saw the
novel.

Usage:  .venv/bin/python benchmarks/names_robustness.py --models /tmp/folds --cv-characters /tmp/cf
            [--work /tmp/litlens_names] [--json OUT]
(fold models from ``attribution_folds.py train`` and ``characters_train.py --fold-models``).
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

# novel -> {name: replacement of the same length}
RENAMES: dict[str, dict[str, str]] = {
    "PrideAndPrejudice": {"Lydia": "April", "Jane": "June", "Kitty": "Grace", "Darcy": "Young"},
    "Emma": {"Harriet": "Charity", "Emma": "Hope", "Elton": "Young", "Jane": "June"},
    "OliverTwist": {"Nancy": "Mercy", "Rose": "Hope", "Noah": "Will", "Charley": "Earnest"},
    "SenseAndSensibility": {"Marianne": "Patience", "Lucy": "June", "Elinor": "Honour"},
    # surnames that are also the last word of place names ("Thornfield Hall", "Cotton Fields")
    "NorthangerAbbey": {"Thorpe": "Church", "Tilney": "Fields", "Allen": "Woods"},
    # a surname with an apostrophe, and a double-barrelled one for a whole family
    "MansfieldPark": {"Crawford": "O'Connor", "Bertram": "Ash-Lee"},
    # surnames that open with a particle ("Mr. van der Luyden", "De Griers")
    "TheMysteriousAffairAtStyles": {"Cavendish": "van Ryden", "Inglethorp": "De Lamotte"},
    # two particles before a family's surname, and first names with accented letters
    "ARoomWithAView": {"Honeychurch": "van der Mol", "Lucy": "Inès"},
    "ThePictureOfDorianGray": {"Gray": "Noël", "Sibyl": "Renée"},
}


def renames_key() -> str:
    """A short digest of RENAMES: the renamed copies' spaCy cache is kept per set of renames."""
    return hashlib.sha1(json.dumps(RENAMES, sort_keys=True).encode()).hexdigest()[:10]


def rename(text: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        assert len(old) == len(new), (old, new)
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


def renamed_corpus(pdnc: Path, work: Path) -> Path:
    """A PDNC folder whose novels of RENAMES are renamed copies and the others links."""
    corpus = work / "pdnc"
    corpus.mkdir(parents=True, exist_ok=True)
    for novel in sorted(p for p in pdnc.iterdir() if p.is_dir()):
        target = corpus / novel.name
        if novel.name not in RENAMES:
            if target.exists() and not target.is_symlink():
                shutil.rmtree(target)  # renamed by an earlier run with other renames
            if not target.exists():
                target.symlink_to(novel.resolve())
            continue
        if target.is_symlink():
            target.unlink()  # a link an earlier run left (the novel was not renamed then): never write through it
        target.mkdir(exist_ok=True)
        assert not target.resolve().is_relative_to(pdnc.resolve()), target
        for path in novel.iterdir():
            if path.suffix == ".csv":
                rename_csv(path, target / path.name, RENAMES[novel.name])
            elif path.is_file():
                (target / path.name).write_text(rename(path.read_text(encoding="utf-8"), RENAMES[novel.name]),
                                                encoding="utf-8")
    return corpus


def rename_csv(source: Path, target: Path, names: dict[str, str]) -> None:
    """The CSV with every cell renamed; a cell holding a Python list or set literal (PDNC's
    aliases, addressees, mention lists) is read and written back as a literal, so that
    "O'Brien" inside it stays well quoted."""
    with open(source, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))

    def cell(value: str) -> str:
        if value[:1] in "[{":
            try:
                parsed = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                return rename(value, names)
            if isinstance(parsed, (list, set)):
                items = [rename(x, names) if isinstance(x, str) else x for x in parsed]
                return repr(items if isinstance(parsed, list) else set(items))
        return rename(value, names)

    with open(target, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([[cell(v) for v in row] for row in rows])


def run(args: list[str], pdnc: Path) -> None:
    env = {**os.environ, "LITLENS_PDNC": str(pdnc)}
    subprocess.run([sys.executable, *args], check=True, env=env, cwd=REPO, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdnc", type=Path, default=Path(os.environ.get("LITLENS_PDNC", REPO.parent / "shared" / "data" / "pdnc")))
    parser.add_argument("--models", type=Path, required=True, help="fold attributors (fold<i>.zip)")
    parser.add_argument("--cv-characters", type=Path, required=True, help="fold character models (fold<i>.json)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/litlens_names"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpus = renamed_corpus(args.pdnc, args.work)
    novels = [a for n in RENAMES for a in ("--novel", n)]
    report: dict[str, dict] = {}
    for label, pdnc, cache in (("original", args.pdnc, Path("/tmp/litlens_chars")),
                               ("renamed", corpus, args.work / f"cache_renamed_{renames_key()}")):
        chars, e2e = args.work / f"characters_{label}.json", args.work / f"e2e_{label}.json"
        gold = args.work / f"gold_{label}.json"
        run(["benchmarks/attribution_folds.py", "score", "--models", str(args.models), "--setting", "gold",
             *novels, "--json", str(gold)], pdnc)
        run(["benchmarks/characters_dev.py", "--cv-characters", str(args.cv_characters), "--cache-dir", str(cache),
             *novels, "--json", str(chars)], pdnc)
        run(["benchmarks/attribution_folds.py", "score", "--models", str(args.models), "--setting", "e2e",
             "--cv-characters", str(args.cv_characters), "--cache-dir", str(cache), *novels, "--json", str(e2e)], pdnc)
        found = {n["novel"]: n for n in json.loads(chars.read_text())["novels"]}
        scored = json.loads(e2e.read_text())["novels"]
        scored_gold = json.loads(gold.read_text())["novels"]
        for novel in RENAMES:
            n = found[novel]
            report.setdefault(novel, {})[label] = {
                "speaking": n["speaking"], "found": n["found"], "split": n["split"], "missed": n["missed"],
                "gender_ok": n["gender_ok"], "e2e": scored[novel]["accuracy"], "e2e_explicit": scored[novel]["explicit"],
                "gold": scored_gold[novel]["accuracy"], "gold_explicit": scored_gold[novel]["explicit"]}
    print(f"{'novel':22} {'renamed':34} found (orig/ren)  split   e2e % (orig/ren)  explicit %   gold/gold %  explicit %")
    for novel, r in report.items():
        o, n = r["original"], r["renamed"]
        names = ", ".join(f"{a}>{b}" for a, b in RENAMES[novel].items())
        print(f"{novel:22} {names:34} {o['found']}/{o['speaking']} {n['found']}/{n['speaking']}   "
              f"{o['split']} {n['split']}   {100 * o['e2e']:.1f} {100 * n['e2e']:.1f}   "
              f"{100 * o['e2e_explicit']:.1f} {100 * n['e2e_explicit']:.1f}   {100 * o['gold']:.1f} {100 * n['gold']:.1f}   "
              f"{100 * o['gold_explicit']:.1f} {100 * n['gold_explicit']:.1f}   missed: {n['missed']}")
    if args.json:
        args.json.write_text(json.dumps({"renames": RENAMES, "novels": report}, indent=1))


if __name__ == "__main__":
    main()
