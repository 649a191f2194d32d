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

``--whole-cast`` renames every novel's whole cast instead, as a stand-in for a book whose
names LitLens has never met (see :func:`whole_cast_renames`): every name word of every
character list becomes an invented word of the same length ("Bennet" -> "Tinuzu"), so that
neither spaCy's knowledge of English names nor the first-name lexicon can help, and the
figures are pooled over the 20 novels beside the originals'.

Usage:  .venv/bin/python benchmarks/names_robustness.py --models /tmp/folds --cv-characters /tmp/cf
            [--work /tmp/litlens_names] [--whole-cast] [--json OUT]
(fold models from ``attribution_folds.py train`` and ``characters_train.py --fold-models``).
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import os
import random
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


# Words of a name that are no name of their own and stay: titles and ranks, kin and
# address words, days and months (The Man Who Was Thursday's council is named by days).
_KEPT_WORDS = frozenset("""
    Mr Mrs Miss Ms Dr Sir Lady Lord Colonel Captain General Major Admiral Lieutenant Sergeant
    Corporal Rev Reverend Father Mother Uncle Aunt Cousin Brother Sister Master Mistress Missis
    Mister Madame Mademoiselle Monsieur Madam Signor Signora Herr Frau Count Countess Baron
    Baroness Duke Duchess Marquis Prince Princess King Queen Professor Inspector Doctor Judge
    Squire Parson Vicar Nurse Dame Saint Granny Grandmother Grandfather Papa Mamma The Old Young
    Little Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April
    May June July August September October November December""".split())
_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"


def whole_cast_renames(pdnc: Path) -> dict[str, dict[str, str]]:
    """For every novel, each word of its character list's names and aliases -> an invented
    word of the same length (consonant, vowel, consonant, ...; seeded by the novel's name, so
    runs agree) that the text never uses.

    Kept as they are: :data:`_KEPT_WORDS`; words of fewer than three letters; words the text
    also writes in lower case ("Rose", "Long", "Hope" keep their second sense); words the text
    mostly writes after "the" (an epithet such as "the Jew" stays a description); and first
    names of the diminutive lexicon, in either direction ("Lizzy", "Elizabeth", "Bill",
    "William"), so that a nickname stays related to its name as in any English book."""
    from litlens.quotes.names import _DIMINUTIVES

    nicknames = set(_DIMINUTIVES) | {full for names in _DIMINUTIVES.values() for full in names}
    plans: dict[str, dict[str, str]] = {}
    for novel in sorted(p for p in pdnc.iterdir() if p.is_dir()):
        text = (novel / "novel_text.txt").read_text(encoding="utf-8")
        lower = set(re.findall(r"\b[a-z]+\b", text))
        every = {w.lower() for w in re.findall(r"\b[A-Za-z]+\b", text)}
        words: set[str] = set()
        with open(novel / "character_info.csv", encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                for name in [row["Main Name"], *ast.literal_eval(row["Aliases"])]:
                    words.update(w for w in re.findall(r"[A-Za-z]+", name)
                                 if len(w) >= 3 and w[0].isupper() and w[1:].islower())
        rng = random.Random(novel.name)
        plan: dict[str, str] = {}
        for word in sorted(words):
            if word in _KEPT_WORDS or word in nicknames or word.lower() in lower:
                continue
            uses = len(re.findall(rf"\b{word}\b", text))
            if not uses or 2 * len(re.findall(rf"\b[Tt]he {word}\b", text)) >= uses:
                continue  # never written, or an epithet
            while True:
                new = "".join(rng.choice(_CONSONANTS if i % 2 == 0 else _VOWELS) for i in range(len(word))).capitalize()
                if new.lower() not in every and new not in plan.values():
                    break
            plan[word] = new
        plans[novel.name] = plan
    return plans


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
    parser.add_argument("--whole-cast", action="store_true", help="rename every name of every novel's cast")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.whole_cast:
        RENAMES.clear()
        RENAMES.update(whole_cast_renames(args.pdnc))
    corpus = renamed_corpus(args.pdnc, args.work)
    novels = [a for n in RENAMES for a in ("--novel", n)]
    report: dict[str, dict] = {}
    pooled: dict[str, dict] = {}
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
        results = {kind: json.loads(path.read_text()) for kind, path in
                   (("characters", chars), ("e2e", e2e), ("gold", gold))}
        found = {n["novel"]: n for n in results["characters"]["novels"]}
        scored, scored_gold = results["e2e"]["novels"], results["gold"]["novels"]
        pooled[label] = {kind: r["pooled"] for kind, r in results.items()}
        for novel in RENAMES:
            n = found[novel]
            report.setdefault(novel, {})[label] = {
                "speaking": n["speaking"], "found": n["found"], "split": n["split"], "missed": n["missed"],
                "gender_ok": n["gender_ok"], "e2e": scored[novel]["accuracy"], "e2e_explicit": scored[novel]["explicit"],
                "gold": scored_gold[novel]["accuracy"], "gold_explicit": scored_gold[novel]["explicit"]}
    print(f"{'novel':22} {'renamed':34} found (orig/ren)  split   e2e % (orig/ren)  explicit %   gold/gold %  explicit %")
    for novel, r in report.items():
        o, n = r["original"], r["renamed"]
        names = (f"{len(RENAMES[novel])} name words" if args.whole_cast
                 else ", ".join(f"{a}>{b}" for a, b in RENAMES[novel].items()))
        print(f"{novel:22} {names:34} {o['found']}/{o['speaking']} {n['found']}/{n['speaking']}   "
              f"{o['split']} {n['split']}   {100 * o['e2e']:.1f} {100 * n['e2e']:.1f}   "
              f"{100 * o['e2e_explicit']:.1f} {100 * n['e2e_explicit']:.1f}   {100 * o['gold']:.1f} {100 * n['gold']:.1f}   "
              f"{100 * o['gold_explicit']:.1f} {100 * n['gold_explicit']:.1f}   missed: {n['missed']}")
    for label, p in pooled.items():
        c = p["characters"]
        print(f"POOLED {label:9} found {c['found']}/{c['speaking']}  split {c['split']}  joined {c['joined']}  "
              f"gender {c['gender_ok']}/{c['gender_n']}  e2e {100 * p['e2e']['accuracy']:.2f} "
              f"(explicit {100 * p['e2e']['explicit']:.2f}, to non-characters {100 * p['e2e']['nonchar']:.2f})  "
              f"gold/gold {100 * p['gold']['accuracy']:.2f} (explicit {100 * p['gold']['explicit']:.2f})")
    if args.json:
        args.json.write_text(json.dumps({"renames": RENAMES, "whole_cast": args.whole_cast, "novels": report,
                                         "pooled": pooled}, indent=1))


if __name__ == "__main__":
    main()
