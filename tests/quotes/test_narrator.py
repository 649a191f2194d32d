"""An unnamed first-person narrator becomes a character; a named one does not get a second entry."""

from __future__ import annotations

import pytest

from litlens.attribution.context import build_context
from litlens.model import NARRATOR, Character, Quotation
from litlens.quotes.characters import discover_characters
from litlens.quotes.narrator import first_person_rate, first_person_cued, needs_narrator
from litlens.text.paragraphs import find_paragraphs
from tests.quotes.conftest import mentions

# A first-person book whose narrator nobody names: Mr. Crane and Mrs. Lowe answer "I".
UNNAMED = [
    "I walked up the hill in the rain, and I found the house shut. I knocked twice.",
    "\u201cYou are late,\u201d said Mr. Crane, opening the door.",
    "\u201cThe road was flooded,\u201d I said. I shook the water from my coat.",
    "\u201cCome in, then, and dry yourself,\u201d said Mr. Crane.",
    "Mrs. Lowe brought tea. I thanked her, and I sat by the fire.",
    "\u201cWill you stay the night?\u201d asked Mrs. Lowe.",
    "\u201cIf you will have me,\u201d said I.",
    "\u201cWe will, and gladly,\u201d said Mr. Crane.",
]
# The same scenes where the answers name the narrator, as others do a named narrator.
NAMED = [p.replace("You are late,", "You are late, Ellis,").replace("Come in, then,", "Come in, Ellis,")
         .replace("and gladly,", "and gladly, Ellis,") for p in UNNAMED]
# Told in the third person: no narrator of its own even when someone says "I".
THIRD = [
    "Mr. Crane walked up the hill in the rain, and he found the house shut. He knocked twice.",
    "\u201cYou are late,\u201d said Mrs. Lowe, opening the door.",
    "\u201cThe road was flooded,\u201d said Mr. Crane. He shook the water from his coat.",
    "\u201cI know it,\u201d said Mrs. Lowe. She laughed. \u201cI said so this morning, and I said it twice.\u201d",
]


def _book(paragraphs: list[str], times: int = 3) -> tuple[str, list[Quotation]]:
    text = "\n\n".join(paragraphs * times) + "\n"
    quotes = []
    pos = 0
    while True:
        start = text.find("\u201c", pos)
        if start < 0:
            break
        end = text.index("\u201d", start)
        after = text[end + 1:text.find("\n", end)]
        cue = None
        for c in ("said I", "I said", "said Mr. Crane", "asked Mrs. Lowe", "said Mrs. Lowe"):
            if after.lstrip(" ,").startswith(c):
                cue = c
        quotes.append(Quotation(spans=[(start + 1, end - (text[end - 1] == ","))], referring_expression=cue,
                                type="explicit" if cue else "implicit"))
        pos = end + 1
    return text, quotes


def _names(text: str) -> list:
    found = [n for n in ("Mr. Crane", "Mrs. Lowe", "Ellis") if n in text]
    return mentions(text, *found)


def test_first_person_rate_counts_i_in_narration_only():
    text = '"I think I will," she said. I went home.'
    assert first_person_rate(text, [(0, 17)]) == 100.0 * 1 / 5  # "she said. I went home."
    assert first_person_cued(Quotation(spans=[(0, 1)], referring_expression="said I."))
    assert not first_person_cued(Quotation(spans=[(0, 1)], referring_expression="said Ivan"))


def test_an_unnamed_first_person_narrator_becomes_a_character():
    text, quotes = _book(UNNAMED)
    characters = discover_characters(text, _names(text), quotes, model=None)
    narrator = [c for c in characters if c.name == NARRATOR]
    assert len(narrator) == 1
    assert narrator[0].aliases == [NARRATOR] and narrator[0].gender == "unknown"
    assert narrator[0].quote_count == 0  # like every entry, until quotations are given to it
    said = [Quotation(spans=q.spans, referring_expression=q.referring_expression, speaker=NARRATOR
                      if q.referring_expression in ("I said", "said I") else None) for q in quotes]
    again = [c for c in discover_characters(text, _names(text), said, model=None) if c.name == NARRATOR]
    assert again[0].quote_count == 6  # "I said" and "said I", three times each
    assert {"Mr. Crane", "Mrs. Lowe"} <= {c.name for c in characters}


def test_a_named_narrator_gets_no_second_entry():
    text, quotes = _book(NAMED)
    characters = discover_characters(text, _names(text), quotes, model=None)
    assert "Ellis" in {c.name for c in characters}
    assert NARRATOR not in {c.name for c in characters}


def test_a_third_person_book_has_no_narrator_entry():
    text, quotes = _book(THIRD)
    assert not needs_narrator(text, quotes, [])
    assert NARRATOR not in {c.name for c in discover_characters(text, _names(text), quotes, model=None)}


def test_the_attributor_takes_the_narrator_entry_as_the_narrator():
    text, quotes = _book(UNNAMED)
    chars = [Character("Mr. Crane", ["Mr. Crane"], "male"), Character("Mrs. Lowe", ["Mrs. Lowe"], "female"),
             Character(NARRATOR, [NARRATOR])]
    ctx = build_context(text, find_paragraphs(text), quotes, chars)
    assert ctx.first_person > 0.5
    assert ctx.narrator == 2
    assert ctx.narrator_score[2] == 1.0
    # without the entry, the likeliest listed character stands in, as before
    assert build_context(text, find_paragraphs(text), quotes, chars[:2]).narrator in (0, 1)


@pytest.mark.parametrize("alias", ["Narr", "_narr", "the narrator", "NARRATOR"])
def test_a_list_that_marks_its_narrator_by_alias_is_believed(alias):
    # PDNC's lists mark the narrator with an alias ("Narr", "_narr"); a user may write "the narrator"
    text, quotes = _book(UNNAMED)
    chars = [Character("Mr. Crane", ["Mr. Crane"], "male"), Character("Mrs. Lowe", ["Mrs. Lowe"], "female"),
             Character("Dr. Ellis", ["Dr. Ellis", alias], "male")]
    ctx = build_context(text, find_paragraphs(text), quotes, chars)
    assert ctx.narrator == 2
    assert ctx.narrator_score[2] == 1.0  # never named in the text
