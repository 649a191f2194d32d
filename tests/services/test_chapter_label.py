"""One chapter reference for every panel: number as users count it, then the chapter's own heading."""

from __future__ import annotations

import pytest

from litlens.model import Chapter
from litlens.services.books import chapter_heading, chapter_label


@pytest.mark.parametrize(("title", "heading"), [
    ("VOL. III. / CHAPTER XVI.", "Vol. III, Chapter XVI"),
    ("VOLUME I / CHAPTER I", "Vol. I, Chapter I"),
    ("CHAPTER IV.", "Chapter IV"),
    ("Chapter 12", "Chapter 12"),
    ("CHAPTER I. Mrs. Rachel Lynde is Surprised", "Chapter I. Mrs. Rachel Lynde is Surprised"),
    ("BOOK TWO / CHAPTER ii.", "Book Two, Chapter II"),
    ("PART ONE", "Part One"),
    ("I.", "I"),
])
def test_chapter_heading_reads_as_a_reader_writes_it(title, heading):
    assert chapter_heading(title) == heading


def test_chapter_label_numbers_headed_chapters_from_one_after_front_matter():
    chapters = [Chapter(0, "", 0, 10), Chapter(1, "VOL. I. / CHAPTER I.", 10, 20),
                Chapter(2, "VOL. III. / CHAPTER XVI.", 20, 30)]
    assert chapter_label(chapters, 0) == "0 · Front matter"
    assert chapter_label(chapters, 2) == "2 · Vol. III, Chapter XVI"
    assert chapter_label(chapters, None) == "—"
    assert chapter_label(chapters, 7) == "—"


def test_chapter_label_without_front_matter_counts_the_first_heading_as_one():
    chapters = [Chapter(0, "CHAPTER I.", 0, 10), Chapter(1, "CHAPTER II.", 10, 20)]
    assert [chapter_label(chapters, i) for i in range(2)] == ["1 · Chapter I", "2 · Chapter II"]
