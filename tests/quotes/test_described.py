"""Described speakers: "said the mariner" makes a minor character, "said the painter" in
answer to "Basil" is Basil."""

from __future__ import annotations

from litlens.model import Character
from litlens.quotes.characters import discover_characters
from litlens.quotes.described import description
from litlens.quotes.detect import detect_quotations
from litlens.text.paragraphs import find_paragraphs
from tests.quotes.conftest import mentions


def _discover(text: str, *names: str) -> list[Character]:
    return discover_characters(text, mentions(text, *names), detect_quotations(text, find_paragraphs(text)), model=None)


def _owner(characters: list[Character], alias: str) -> Character | None:
    return next((c for c in characters if alias in c.aliases), None)


def test_description_reads_the_head_noun_and_leaves_out_general_words():
    assert description("said the worthy beadle, setting down") == ("beadle", "worthy beadle")
    assert description("replied the old mariner") == ("mariner", "old mariner")
    assert description("The landlady said") == ("landlady", "landlady")
    assert description("said the man") is None  # too general for one person
    assert description("said her father") is None  # a relative: someone of the list
    assert description("said Mr. Bumble") is None


# A seaman the narration never names, talking with a tramp.
MARINER = """Mr. Marvel sat on the bench by the road. A mariner came up and sat beside him.

"Fine day," said the mariner. He took out his pipe.

"Very fine," said Mr. Marvel.

"You've heard the news?" asked the old mariner. He lit the pipe slowly.

"What news?" said Mr. Marvel, and he looked away.
"""


def test_a_description_that_answers_no_name_is_a_minor_character():
    characters = _discover(MARINER, "Marvel")
    mariner = _owner(characters, "the mariner")
    assert mariner is not None and mariner is not _owner(characters, "Mr. Marvel")
    assert "the old mariner" in mariner.aliases
    assert mariner.gender == "male"  # "He took out his pipe"


# A painter addressed by his name and answering under a description.
PAINTER = """Basil Hallward stood before the easel. Lord Henry watched him from the divan.

"Basil, this is your best work," said Lord Henry.

"I shall never show it," said the painter. He put down his brush.

"Basil, you must send it to the Grosvenor."

"No," answered the painter, "I shall not." Basil turned away.
"""


def test_a_description_that_answers_one_name_is_that_person():
    characters = _discover(PAINTER, "Basil Hallward", "Basil", "Lord Henry")
    basil = _owner(characters, "Basil Hallward")
    assert basil is not None and _owner(characters, "the painter") is basil


def test_a_description_used_once_or_answering_several_names_stays_out():
    once = MARINER.replace("asked the old mariner", "asked Mr. Marvel's friend")
    assert _owner(_discover(once, "Marvel"), "the mariner") is None
    # answering "Basil" once and "Dorian" once: an epithet of whom?
    two = PAINTER.replace("Basil, you must send", "Dorian, you must send") + "Dorian Gray laughed.\n"
    characters = _discover(two, "Basil Hallward", "Basil", "Lord Henry", "Dorian Gray", "Dorian")
    assert _owner(characters, "Dorian Gray") is not None
    assert _owner(characters, "the painter") is None


def test_a_description_the_narration_sets_beside_a_name_is_that_person():
    # answering "Basil" once and "Dorian" once says nothing; "Basil Hallward, the painter" does
    two = (PAINTER.replace("Basil, you must send", "Dorian, you must send")
           .replace("Basil Hallward stood before", "Basil Hallward, the painter, stood before") + "Dorian Gray laughed.\n")
    characters = _discover(two, "Basil Hallward", "Basil", "Lord Henry", "Dorian Gray", "Dorian")
    basil = _owner(characters, "Basil Hallward")
    assert basil is not None and _owner(characters, "the painter") is basil
