"""Scoring speaker attributions against PDNC gold, with the convention of seed 003.

- Only quotations whose gold speaker utters at least ``min_quotes`` (10) quotations in the
  novel are scored. Speakers are compared as gold characters: a gold quotation's speaker
  (PDNC writes a main name or, sometimes, an alias such as "Lucy") is looked up in the gold
  character list, main names first.
- Accuracy is reported overall, per gold type (explicit / anaphoric / implicit) and for
  "other" (anaphoric + implicit).
- With detected quotations, gold and detected quotations are matched one-to-one as in
  ``litlens eval quotes`` (character IoU >= 0.5); a gold quotation with no match counts
  as wrong.
- With discovered characters, each discovered character stands for the gold character
  that shares the most aliases with it. Names are compared without case, periods, extra
  spaces or a leading "the" ("the March Hare" = "March Hare"). The discovered main name
  counts twice; a tie goes to the gold character whose main name is among the discovered
  aliases, and a tie left after that maps to nobody. A discovered character sharing no
  alias maps to nobody, so answering it is wrong. Several discovered characters may map
  to the same gold one (a split character is not penalised twice).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from litlens.attribution.context import character_index, normalise_alias
from litlens.model import Character, Quotation
from litlens.quotes.evaluate import match_quotations

MIN_QUOTES = 10
SCORE_KEYS = ("accuracy", "explicit", "other", "anaphoric", "implicit", "quotations")

Row = tuple[str, bool]  # (gold type, correct) of one scored quotation


def gold_key(quotation: Quotation, index: int) -> str:
    """The key a prediction for a gold quotation is stored under: its PDNC id, else its index."""
    return quotation.source_id or str(index)


def gold_speaker_ids(gold: Sequence[Quotation], gold_characters: Sequence[Character]) -> list[int | None]:
    """Each gold quotation's speaker as an index into ``gold_characters`` (None: unknown)."""
    index = character_index(gold_characters)
    return [index.get(normalise_alias(q.speaker)) if q.speaker else None for q in gold]


def attribution_rows(
    gold: Sequence[Quotation],
    predicted: Mapping[str, str | None],
    gold_characters: Sequence[Character],
    *,
    min_quotes: int = MIN_QUOTES,
) -> list[Row]:
    """Scored rows: ``predicted`` maps :func:`gold_key` to a gold character's name, alias or id."""
    index = character_index(gold_characters)
    by_id = {c.source_id: ci for ci, c in enumerate(gold_characters) if c.source_id is not None}
    speakers = gold_speaker_ids(gold, gold_characters)
    counts = Counter(s for s in speakers if s is not None)
    rows: list[Row] = []
    for i, (q, sid) in enumerate(zip(gold, speakers)):
        if sid is None or counts[sid] < min_quotes:
            continue
        answer = predicted.get(gold_key(q, i))
        got = None
        if answer is not None:
            got = index.get(normalise_alias(answer))
            if got is None:
                got = by_id.get(str(answer))
        rows.append((q.type or "implicit", got == sid))
    return rows


def score_rows(rows: Iterable[Row]) -> dict:
    """Accuracies (fractions, None when there is nothing of that kind) and the count scored."""
    rows = list(rows)

    def acc(kinds: tuple[str, ...] | None) -> float | None:
        sel = [ok for t, ok in rows if kinds is None or t in kinds]
        return round(sum(sel) / len(sel), 4) if sel else None

    return {
        "accuracy": acc(None),
        "explicit": acc(("explicit",)),
        "other": acc(("anaphoric", "implicit")),
        "anaphoric": acc(("anaphoric",)),
        "implicit": acc(("implicit",)),
        "quotations": len(rows),
    }


def score_attributions(
    gold: Sequence[Quotation],
    predicted: Mapping[str, str | None],
    gold_characters: Sequence[Character],
    *,
    min_quotes: int = MIN_QUOTES,
) -> dict:
    """Seed-003 accuracies of ``predicted`` (gold key -> gold character name/alias/id)."""
    return score_rows(attribution_rows(gold, predicted, gold_characters, min_quotes=min_quotes))


def pooled(rows_per_novel: Mapping[str, Sequence[Row]]) -> dict:
    """The pooled scores over every novel's scored quotations (not a mean of means)."""
    return score_rows(r for rows in rows_per_novel.values() for r in rows)


def predictions_for_gold(
    gold: Sequence[Quotation],
    detected: Sequence[Quotation],
    detected_answers: Sequence[str | None],
) -> dict[str, str | None]:
    """Carry answers for detected quotations over to the gold quotations they match.

    Unmatched gold quotations get no answer (so they count as wrong).
    """
    out: dict[str, str | None] = {gold_key(q, i): None for i, q in enumerate(gold)}
    for gi, pj, _ in match_quotations(gold, detected):
        out[gold_key(gold[gi], gi)] = detected_answers[pj]
    return out


def map_discovered_to_gold(discovered: Sequence[Character], gold_characters: Sequence[Character]) -> list[int | None]:
    """For each discovered character, the index of the gold character it stands for (see module docs)."""
    def name(alias: str) -> str:
        norm = normalise_alias(alias)
        return norm[4:] if norm.startswith("the ") else norm

    gold_sets = [{name(a) for a in [c.name, *c.aliases]} for c in gold_characters]
    gold_main = [name(c.name) for c in gold_characters]
    out: list[int | None] = []
    for d in discovered:
        mine = {name(a) for a in [d.name, *d.aliases]}
        main = name(d.name)
        best: list[tuple[tuple[int, int], int]] = []
        for gi, gset in enumerate(gold_sets):
            shared = mine & gset
            if not shared:
                continue
            score = (len(shared) + (main in gset), int(gold_main[gi] in mine))
            best.append((score, gi))
        if not best:
            out.append(None)
            continue
        best.sort(reverse=True)
        if len(best) > 1 and best[0][0] == best[1][0]:
            out.append(None)
        else:
            out.append(best[0][1])
    return out
