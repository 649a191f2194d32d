"""Joining an essay's quotations of the novel into blocks (link-criticism)."""

from __future__ import annotations

from litlens.retrieval.criticism import EssayQuotation, join_blocks

ESSAY = 'Austen writes: "One. Two." "Two. Three." Much later: "Two."'


def test_consecutive_quotations_that_overlap_in_the_novel_become_one_block():
    first = EssayQuotation(14, 26, first=5, n=2, score=98.0, text='"One. Two."')
    second = EssayQuotation(27, 40, first=6, n=2, score=96.0, text='"Two. Three."')
    later = EssayQuotation(54, 60, first=6, n=1, score=100.0, text='"Two."')
    blocks = join_blocks([second, later, first], ESSAY)
    assert [(b.first, b.n) for b in blocks] == [(5, 3), (6, 1)]  # 5-7 once; the later use stays its own
    assert blocks[0].essay_start == 14 and blocks[0].essay_end == 40 and blocks[0].score == 96.0


def test_adjacent_quotations_still_join_and_separate_ones_do_not():
    a = EssayQuotation(14, 26, first=5, n=2, score=99.0, text="")
    b = EssayQuotation(27, 40, first=7, n=1, score=99.0, text="")
    c = EssayQuotation(27, 40, first=9, n=1, score=99.0, text="")
    assert [(q.first, q.n) for q in join_blocks([a, b], ESSAY)] == [(5, 3)]
    assert [(q.first, q.n) for q in join_blocks([a, c], ESSAY)] == [(5, 2), (9, 1)]
