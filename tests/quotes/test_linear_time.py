"""The quotation stages read back only as far as they need (issue 37): the same answers as
the code that read every clause from the paragraph's start, on small inputs built to hit
the edges (runs of full stops, closing quotes, blank lines, abbreviations, open quotes)."""

from __future__ import annotations

import random
import re

import pytest

from litlens.model import Paragraph
from litlens.quotes import cues, keep, marks, written
from litlens.quotes.detect import detect_quotations
from litlens.quotes.cues import _FULL_STOP, _SENTENCE_END, CLAUSE_LIMIT, clause_start
from litlens.quotes.lexicon import _ABBREV
from litlens.text.paragraphs import find_paragraphs


def _clause_start_plain(text: str, start: int, end: int, ends: re.Pattern[str]) -> int:
    last = start
    for m in ends.finditer(text, start, end):
        if m.end() >= end:
            break
        if m.group().startswith(".") and _ABBREV.search(text[max(start, m.start() - 8) : m.start() + 1]):
            continue
        last = m.end()
    return last


_PIECES = ["Mr", "Mrs", "A", "x", "word", " ", " ", "\n", "\n\n", ".", "..", "!", "?", ";", '"', "”", ")", "’", "e"]


@pytest.mark.parametrize("limit", [10_000, 15], ids=["unbounded", "bounded"])
@pytest.mark.parametrize("ends", [_SENTENCE_END, _FULL_STOP], ids=["sentence_end", "full_stop"])
def test_clause_start_same_as_plain_scan(monkeypatch: pytest.MonkeyPatch, ends: re.Pattern[str], limit: int) -> None:
    monkeypatch.setattr(cues, "_CLAUSE_WINDOW", 3)  # tiny windows: every boundary case is met
    monkeypatch.setattr(cues, "CLAUSE_LIMIT", limit)
    rng = random.Random(37)
    for _ in range(3000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 40)))
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        expected = _clause_start_plain(text, max(start, end - limit), end, ends)
        assert clause_start(text, start, end, ends) == expected, (text, start, end)


def test_clause_start_long_clause_in_long_paragraph() -> None:
    text = "He came. " * 2000 + "And then, " + "very slowly, " * 100 + 'she said, "'
    end = len(text) - 1
    assert clause_start(text, 0, end) == _clause_start_plain(text, 0, end, _SENTENCE_END) == 9 * 2000 - 1


def test_clause_start_reads_back_at_most_the_limit() -> None:
    text = "He came. " + "and then, very slowly, " * 1000 + 'she said, "'
    end = len(text) - 1
    assert clause_start(text, 0, end) == end - CLAUSE_LIMIT


# ----------------------------------------------------------- detection without re-reading


def _written_before_sliced(text: str, group: list[marks._Seg], prev_seg: marks._Seg | None, paragraphs) -> bool:
    """_written_before as it was, copying the narration before the quotation."""
    first = group[0]
    p = paragraphs[first.para]
    if first.open_mark is None or first.open_mark == p.start:
        return False
    begin = prev_seg.close_mark + 1 if prev_seg is not None and prev_seg.para == first.para and prev_seg.close_mark is not None else p.start
    before = text[begin : first.open_mark].rstrip()
    body = before.rstrip(" \u00a0-\u2014:.")
    if not body or before[-1:] not in {":", "-", "\u2014"}:
        return False
    end = begin + len(body)
    clause = text[clause_start(text, begin, end) : end]
    return written._tells_of_writing(clause) or written._unspoken_words(clause)


_NARRATION = ["These were the words", "the note ran thus", "he said", "and", " ", " ", "\n", ":", " --", "\u2014", ".",
              " \u00a0", "-", ";", "The letter", "Kemp read this letter twice", "as follows", "quietly"]


def test_written_before_same_as_copying_the_narration() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        narration = "".join(rng.choice(_NARRATION) for _ in range(rng.randint(0, 8)))
        text = narration + '"I had not a spare moment," ' + "".join(rng.choice(_NARRATION) for _ in range(4)) + ' "Go."'
        paragraphs = [Paragraph(index=0, start=0, end=len(text), chapter=None)]
        first_open = len(narration)
        first_close = text.index('"', first_open + 1)
        second_open = text.index('"', first_close + 1)
        prev = marks._Seg(0, first_open + 1, first_close, first_open, first_close)
        for open_mark, prev_seg in [(first_open, None), (second_open, prev), (second_open, None)]:
            group = [marks._Seg(0, open_mark + 1, len(text) - 1, open_mark, len(text) - 1)]
            assert written._written_before(text, group, prev_seg, paragraphs) == _written_before_sliced(text, group, prev_seg, paragraphs), text


class _NoHints(written._UnutteredHints):
    def any_within(self, index, paragraph, start, end) -> bool:
        return True  # every clause is read, as before the hints


_CLAUSES = ["He looked up, and his face seemed to say, ", "The telegram read: ", "She had meant, ", "as if to say ",
            "Having read it through, he returned it saying, ", "The card was headed ", "he might have said ",
            "if she had only asked ", "Then he wrote ", "said Kemp. ", "She smiled. ", "and the passage ran ",
            "Mr. Bennet replied ", "\u201cword ", "quietly, ", "\n\n"]


def test_unuttered_hints_change_no_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    texts = []
    for _ in range(150):
        parts = []
        for _ in range(rng.randint(1, 12)):
            parts.append(rng.choice(_CLAUSES))
            parts.append(rng.choice(['"Go away." ', '"Dear Sir, come at once," ', '"No!" ', "\u201cPrivate.\u201d ", '"Yes," ']))
        texts.append("".join(parts).strip() + "\n")
    with_hints = {k: [detect_quotations(t, find_paragraphs(t), keep=k) for t in texts] for k in ("rules", "learned")}
    monkeypatch.setattr(keep, "_UnutteredHints", _NoHints)
    without = {k: [detect_quotations(t, find_paragraphs(t), keep=k) for t in texts] for k in ("rules", "learned")}
    assert with_hints == without
    assert sum(len(found) for found in with_hints["rules"]) > 300  # the texts hold quotations, some of them dropped
