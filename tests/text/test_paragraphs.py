from __future__ import annotations

import re
from pathlib import Path

import pytest

from litlens.quotes.detect import detect_quotations
from litlens.quotes.evaluate import score_quotations
from litlens.quotes.pdnc import read_pdnc_quotations
from litlens.text.paragraphs import find_paragraphs, paragraph_layout

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "pdnc" / "PrideAndPrejudice"


@pytest.fixture(scope="module")
def printed() -> str:
    """Pride and Prejudice as Project Gutenberg prints it: wrapped lines, blank lines between paragraphs."""
    return (SAMPLE / "novel_text.txt").read_text(encoding="utf-8")


def one_line_each(text: str) -> str:
    """The same book with each paragraph on one line and no blank lines; offsets unchanged."""
    return re.sub(r"\n\n", " \n", re.sub(r"(?<!\n)\n(?!\n)", " ", text))


def indented(text: str) -> str:
    """The same book wrapped, each paragraph's first line indented instead of a blank line before it."""
    return re.sub(r"\n\n(?=\S)", "\n ", text)


def bodies(text: str) -> list[str]:
    return [" ".join(text[p.start : p.end].split()) for p in find_paragraphs(text)]


def test_layout_of_a_gutenberg_book_is_blank_lines(printed):
    assert paragraph_layout(printed) == "blank"


def test_one_paragraph_per_line_gives_the_same_paragraphs(printed):
    flat = one_line_each(printed)
    assert paragraph_layout(flat) == "line"
    assert bodies(flat) == bodies(printed)
    # One paragraph per line with a blank line between them is read the same way.
    spaced = flat.replace(" \n", "\n\n")
    assert paragraph_layout(spaced) == "line" and bodies(spaced) == bodies(printed)


def test_indented_first_lines_give_the_same_paragraphs(printed):
    text = indented(printed)
    assert paragraph_layout(text) == "indent"
    # Every paragraph comes out as printed, except that an indented line inside one (a
    # letter's salutation or signature) starts a paragraph of its own, unless it goes on in
    # lower case (the printed book has hundreds of wrapped lines that a stray space indents,
    # " said he", and a paragraph never opens with a small letter).
    opens = re.compile(r"\n[ \t]+[^\sa-z]")
    inner_indent = [p for p in find_paragraphs(printed) if opens.search(printed[p.start : p.end])]
    plain = set(bodies(printed)) - {" ".join(printed[p.start : p.end].split()) for p in inner_indent}
    assert plain <= set(bodies(text))
    assert len(bodies(text)) == len(bodies(printed)) + sum(
        len(opens.findall(printed[p.start : p.end])) for p in inner_indent
    )
    assert len(re.findall(r"\n[ \t]+[a-z]", printed)) > 500  # those lines were all tried


def test_blank_lines_still_separate_paragraphs_when_some_lines_are_indented():
    text = "First paragraph,\nwrapped here.\n\n    An indented verse line\n    and another.\n\nLast one.\n\n" * 10
    assert paragraph_layout(text) == "blank"
    assert bodies(text)[:3] == ["First paragraph, wrapped here.", "An indented verse line and another.", "Last one."]


def test_a_short_text_without_long_lines_keeps_its_line_breaks_inside_paragraphs():
    assert bodies('"Hello," she said,\n"and goodbye."') == ['"Hello," she said, "and goodbye."']
    assert paragraph_layout("") == "blank" and find_paragraphs("") == []


@pytest.mark.parametrize("relayout", [one_line_each, indented])
def test_quotations_are_found_as_well_whatever_the_layout(printed, relayout):
    gold = read_pdnc_quotations(SAMPLE / "quotation_info.csv", untyped="none")
    text = relayout(printed)
    as_printed = score_quotations(gold, detect_quotations(printed, find_paragraphs(printed)))
    relaid = score_quotations(gold, detect_quotations(text, find_paragraphs(text)))
    assert as_printed["f1"] > 0.95
    assert relaid["f1"] > as_printed["f1"] - 0.005
    assert relaid["type_accuracy"] > as_printed["type_accuracy"] - 0.01
