"""Score detected quotations against gold ones (PDNC convention).

A gold and a predicted quotation *match* when the intersection over union of their
character sets (the union of their sub-spans) is at least 0.5. Matching is one-to-one,
greedy by descending IoU (ties broken by position, so the result is deterministic).

:func:`score_quotations` returns raw counts next to the fractions, so that
:func:`pool_scores` can pool several novels exactly (micro-average), not by averaging
per-novel fractions.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from litlens.model import QUOTE_TYPES, Quotation

MATCH_THRESHOLD = 0.5

# Raw counts kept in every score dict; everything else is derived from them.
_COUNT_KEYS = ("quotations", "predicted", "matched", "typed", "type_correct")


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping, non-empty intervals covering ``spans``."""
    out: list[tuple[int, int]] = []
    for start, end in sorted((s, e) for s, e in spans if e > s):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _length(intervals: Sequence[tuple[int, int]]) -> int:
    return sum(e - s for s, e in intervals)


def _intersection(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> int:
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


def quotation_iou(a: Quotation, b: Quotation) -> float:
    """IoU of the character sets covered by two quotations' spans (0.0 when both are empty)."""
    ma, mb = _merged(a.spans), _merged(b.spans)
    inter = _intersection(ma, mb)
    union = _length(ma) + _length(mb) - inter
    return inter / union if union else 0.0


def match_quotations(
    gold: Sequence[Quotation],
    predicted: Sequence[Quotation],
    threshold: float = MATCH_THRESHOLD,
) -> list[tuple[int, int, float]]:
    """One-to-one matches ``(gold_index, predicted_index, iou)`` with ``iou >= threshold``.

    Pairs are taken greedily by descending IoU; the result is sorted by gold index.
    """
    g_sets = [_merged(q.spans) for q in gold]
    p_sets = [_merged(q.spans) for q in predicted]
    # Candidate pairs: only quotations whose overall extents overlap can match.
    p_order = sorted((s[0][0], s[-1][1], j) for j, s in enumerate(p_sets) if s)
    p_starts = [start for start, _, _ in p_order]
    # Extents are not nested in general, so track the longest predicted extent to bound the scan.
    max_len = max((end - start for start, end, _ in p_order), default=0)
    pairs: list[tuple[float, int, int]] = []
    for i, gs in enumerate(g_sets):
        if not gs:
            continue
        g_start, g_end = gs[0][0], gs[-1][1]
        k = bisect.bisect_left(p_starts, g_start - max_len)
        g_len = _length(gs)
        while k < len(p_order) and p_order[k][0] < g_end:
            _, p_end, j = p_order[k]
            k += 1
            if p_end <= g_start:
                continue
            inter = _intersection(gs, p_sets[j])
            if not inter:
                continue
            iou = inter / (g_len + _length(p_sets[j]) - inter)
            if iou >= threshold:
                pairs.append((iou, i, j))
    pairs.sort(key=lambda t: (-t[0], t[1], t[2]))
    used_g: set[int] = set()
    used_p: set[int] = set()
    matches: list[tuple[int, int, float]] = []
    for iou, i, j in pairs:
        if i in used_g or j in used_p:
            continue
        used_g.add(i)
        used_p.add(j)
        matches.append((i, j, iou))
    matches.sort()
    return matches


def _empty_confusion() -> dict[str, dict[str, int]]:
    return {g: {p: 0 for p in QUOTE_TYPES} for g in QUOTE_TYPES}


def _finish(counts: dict[str, int], confusion: dict[str, dict[str, int]]) -> dict:
    n_gold, n_pred, matched = counts["quotations"], counts["predicted"], counts["matched"]
    # Empty sides are vacuously perfect: no prediction is wrong when nothing is predicted,
    # nothing is missed when there is nothing to find (F1 still drops to 0 with the other).
    precision = matched / n_pred if n_pred else 1.0
    recall = matched / n_gold if n_gold else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    typed = counts["typed"]
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        # 0.0 when no matched pair has a gold type; "typed" says how many pairs it is over.
        "type_accuracy": counts["type_correct"] / typed if typed else 0.0,
        "type_confusion": confusion,
        **counts,
    }


def score_quotations(gold: Sequence[Quotation], predicted: Sequence[Quotation]) -> dict:
    """Precision, recall, F1 of quotation detection and type accuracy over matched pairs.

    Returns ``{"precision", "recall", "f1", "type_accuracy", "type_confusion",
    "quotations", "predicted", "matched", "typed", "type_correct"}``: ``type_confusion`` is
    ``{gold_type: {predicted_type: count}}`` over matched pairs; ``typed`` counts matched
    pairs whose gold quotation has a valid type (the others count for precision and
    recall only); the integer fields are the raw counts :func:`pool_scores` adds up.
    """
    matches = match_quotations(gold, predicted)
    confusion = _empty_confusion()
    typed = correct = 0
    for i, j, _ in matches:
        g_type, p_type = gold[i].type, predicted[j].type
        if g_type not in QUOTE_TYPES or p_type not in QUOTE_TYPES:
            continue
        typed += 1
        correct += g_type == p_type
        confusion[g_type][p_type] += 1
    counts = {
        "quotations": len(gold),
        "predicted": len(predicted),
        "matched": len(matches),
        "typed": typed,
        "type_correct": correct,
    }
    return _finish(counts, confusion)


def pool_scores(scores: Iterable[dict]) -> dict:
    """Pool several :func:`score_quotations` results by summing their raw counts."""
    counts = dict.fromkeys(_COUNT_KEYS, 0)
    confusion = _empty_confusion()
    for s in scores:
        for key in _COUNT_KEYS:
            counts[key] += int(s[key])
        for g_type, row in s.get("type_confusion", {}).items():
            for p_type, n in row.items():
                confusion.setdefault(g_type, {}).setdefault(p_type, 0)
                confusion[g_type][p_type] += int(n)
    return _finish(counts, confusion)
