from __future__ import annotations

import pytest

from litlens.text.chapters import assign_chapters, find_chapters, parse_number
from litlens.text.ingest import read_book
from litlens.text.paragraphs import find_paragraphs
from tests.text.conftest import PDNC, require_pdnc

BODY = "It was a fine day, and the story went on for a while."


def _chapters(text: str):
    return find_chapters(text, find_paragraphs(text))


def _titles(text: str) -> list[str]:
    return [c.title for c in _chapters(text)]


def _book(*headings: str, front: str = "") -> str:
    parts = [front] if front else []
    for heading in headings:
        parts += [heading, BODY]
    return "\n\n".join(parts) + "\n"


@pytest.mark.parametrize(
    "headings",
    [
        ("CHAPTER I", "CHAPTER II", "CHAPTER III"),
        ("CHAPTER I.", "CHAPTER II.", "CHAPTER III."),
        ("Chapter 1.", "Chapter 2.", "Chapter 3."),
        ("Chapter the First", "Chapter the Second", "Chapter the Fourth"),
        ("CHAPTER XI. The Ball", "CHAPTER XII. The Wedding", "CHAPTER XIII.\nTHE DEPARTURE"),
        ("Chapter I: The Bertolini", "Chapter II: In Santa Croce", "Chapter III: Music"),
        ("CHAPTER ONE", "CHAPTER TWO", "CHAPTER THREE"),
        ("I", "II", "III"),
        ("IV.", "V.", "VI."),
        ("I.\u2014THE START", "II.\u2014THE MIDDLE", "III.\u2014THE FINISH"),
        ("1", "2", "3"),
    ],
)
def test_chapters_heading_forms(headings):
    text = _book(*headings)
    assert _titles(text) == [" ".join(h.split()) for h in headings]


def test_chapters_number_on_the_next_line():
    text = _book("CHAPTER\n   1", "CHAPTER\n   2")
    assert _titles(text) == ["CHAPTER 1", "CHAPTER 2"]


def test_chapters_long_descriptive_title():
    long_title = (
        "CHAPTER V.\nOLIVER MINGLES WITH NEW ASSOCIATES. GOING TO A FUNERAL FOR THE FIRST\n"
        "TIME, HE FORMS AN UNFAVOURABLE NOTION OF HIS MASTER'S BUSINESS"
    )
    assert len(_chapters(_book("CHAPTER IV.", long_title))) == 2


@pytest.mark.parametrize(
    "paragraph",
    [
        "Chapter two was found, and she glanced at its opening sentences.",
        "chapter 4 is the best one",
        "Part of her meaning was to conceal some favourite thoughts.",
        "Book Club, the Debating Society, the Progressive Whist, the bazaars.",
        "CHAPTER I. CHAPTER II. CHAPTER III.\nCHAPTER IV.",
    ],
)
def test_chapters_prose_is_not_a_heading(paragraph):
    text = _book("CHAPTER I", "CHAPTER II") + "\n" + paragraph + "\n\n" + BODY + "\n"
    assert _titles(text) == ["CHAPTER I", "CHAPTER II"]


def test_chapters_lone_numeral_in_dialogue_is_not_a_heading():
    text = "\n\n".join(["The story begins.", '"Who was first?"', "I.", "He said it proudly.", BODY]) + "\n"
    chapters = _chapters(text)
    assert [(c.title, c.start, c.end) for c in chapters] == [("", 0, len(text))]


def test_chapters_bare_numerals_need_a_sequence():
    in_order = _book("I", "II", "III")
    two_only = _book("I", "II")
    out_of_order = _book("V", "II", "IX")
    assert len(_chapters(in_order)) == 3
    assert [c.title for c in _chapters(two_only)] == [""]
    assert [c.title for c in _chapters(out_of_order)] == [""]


def test_chapters_bare_numerals_ignored_when_chapter_headings_exist():
    text = _book("CHAPTER I", "1", "2", "3", "CHAPTER II")
    assert _titles(text) == ["CHAPTER I", "CHAPTER II"]


def test_chapters_front_matter_only_when_not_blank():
    with_front = _book("CHAPTER I", "CHAPTER II", front="PRIDE AND PREJUDICE\n\nBy Jane Austen")
    assert _titles(with_front) == ["", "CHAPTER I", "CHAPTER II"]
    blank_front = "\n\n   \n" + _book("CHAPTER I", "CHAPTER II")
    chapters = _chapters(blank_front)
    assert [c.title for c in chapters] == ["CHAPTER I", "CHAPTER II"]
    assert chapters[0].start == 0


def test_chapters_tile_the_text():
    text = _book("CHAPTER I", "CHAPTER II", "CHAPTER III", front="A Title")
    chapters = _chapters(text)
    assert chapters[0].start == 0 and chapters[-1].end == len(text)
    for i, (a, b) in enumerate(zip(chapters, chapters[1:])):
        assert a.end == b.start and a.index == i
    assert text[chapters[2].start :].startswith("CHAPTER II\n")


def test_chapters_parts_prefix_chapter_titles():
    text = _book("BOOK I", "CHAPTER I", "CHAPTER II", "BOOK II", "CHAPTER III")
    text = text.replace("BOOK I\n\n" + BODY, "BOOK I").replace("BOOK II\n\n" + BODY, "BOOK II")
    chapters = _chapters(text)
    assert [c.title for c in chapters] == ["BOOK I / CHAPTER I", "BOOK I / CHAPTER II", "BOOK II / CHAPTER III"]
    assert text[chapters[2].start :].startswith("BOOK II\n\nCHAPTER III")  # the part opens its first chapter


@pytest.mark.parametrize("part", ["PART ONE", "Part Two", "VOLUME I", "PART I: MOSQUE", "BOOK THE FIRST"])
def test_chapters_part_heading_forms(part):
    text = f"{part}\n\nCHAPTER I\n\n{BODY}\n"
    assert _titles(text) == [f"{part} / CHAPTER I"]


def test_chapters_part_without_chapters_is_a_chapter():
    text = _book("PART I", "PART II", front="DAISY MILLER: A STUDY")
    assert _titles(text) == ["", "PART I", "PART II"]


def test_chapters_contents_list_is_not_chapters():
    contents = "CONTENTS\n\nCHAPTER I. The Start\n\nCHAPTER II. The End\n\n"
    text = "A BOOK\n\n" + contents + _book("CHAPTER I. The Start", "CHAPTER II. The End")
    chapters = _chapters(text)
    assert [c.title for c in chapters] == ["", "CHAPTER I. The Start", "CHAPTER II. The End"]
    assert "CONTENTS" in text[chapters[0].start : chapters[0].end]


def test_chapters_text_without_headings_is_one_chapter():
    text = "Just a story.\n\nWith two paragraphs.\n"
    assert [(c.index, c.title, c.start, c.end) for c in _chapters(text)] == [(0, "", 0, len(text))]
    assert find_chapters("", []) == []
    assert find_chapters("  \n", find_paragraphs("  \n")) == []


def test_chapters_assign_chapters_sets_each_paragraph():
    text = _book("CHAPTER I", "CHAPTER II", front="Front")
    paragraphs = find_paragraphs(text)
    chapters = find_chapters(text, paragraphs)
    assigned = assign_chapters(paragraphs, chapters)
    assert [p.chapter for p in assigned] == [0, 1, 1, 2, 2]
    assert all(p.chapter is None for p in paragraphs)  # the input is not changed
    assert [(p.start, p.end) for p in assigned] == [(p.start, p.end) for p in paragraphs]


@pytest.mark.parametrize(
    ("token", "value"),
    [("IV", 4), ("xii", 12), ("XLIX", 49), ("12", 12), ("the Fourth", 4), ("twenty-one", 21),
     ("Twenty First", 21), ("ONE", 1), ("LXI", 61)],
)
def test_chapters_parse_number(token, value):
    assert parse_number(token) == value


# Chapters (not counting front matter) in the PDNC editions, checked by reading them.
PDNC_CHAPTERS = {
    "APassageToIndia": 37, "ARoomWithAView": 20, "AlicesAdventuresInWonderland": 12,
    "AnneOfGreenGables": 38, "DaisyMiller": 2, "Emma": 55, "MansfieldPark": 48,
    "NorthangerAbbey": 31, "OliverTwist": 53, "PrideAndPrejudice": 61, "SenseAndSensibility": 50,
    "TheAwakening": 39, "TheInvisibleMan": 28, "TheManWhoWasThursday": 15,
    "TheMysteriousAffairAtStyles": 13, "ThePictureOfDorianGray": 20, "TheSignOfTheFour": 12,
    "TheSunAlsoRises": 19, "WhereAngelsFearToTread": 10, "WinnieThePooh": 10,
}


@pytest.mark.parametrize("novel", sorted(PDNC_CHAPTERS))
def test_chapters_pdnc_counts(novel):
    path = require_pdnc() / novel / "novel_text.txt"
    text = read_book(path).text
    chapters = _chapters(text)
    assert sum(1 for c in chapters if c.title) == PDNC_CHAPTERS[novel]
    assert chapters[0].start == 0 and chapters[-1].end == len(text)


def test_chapters_emma_volumes_in_titles():
    require_pdnc()
    titles = _titles(read_book(PDNC / "Emma" / "novel_text.txt").text)
    assert titles[1] == "VOLUME I / CHAPTER I"
    assert titles[-1] == "VOLUME III / CHAPTER XIX"
    assert sum(t.startswith("VOLUME II /") for t in titles) == 18
