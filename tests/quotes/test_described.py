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
    assert description("cried out the porter") == ("porter", "porter")
    # only the cue's subject: a "the ..." phrase elsewhere in a pronoun cue is someone else
    assert description("He surveyed the company, saw Fielding crouched below him, and said") is None


def test_a_general_noun_marked_out_by_the_phrase_after_the_cue_is_one_person():
    # "said the gentleman" + " in the white waistcoat": the phrase after the cue makes the
    # general noun one person; adjectives aside, one phrase is one man
    after = " in the white\nwaistcoat. And"
    assert description("said the gentleman", after) == ("gentleman in waistcoat", "gentleman in the white waistcoat")
    assert description("said the old gentleman", " in the waistcoat,")[0] == "gentleman in waistcoat"
    assert description("said the man", " with spectacles.") == ("man with spectacles", "man with spectacles")
    assert description("said the gentleman", " with a smile.") is None  # how it was said
    assert description("said the lady", " in a low voice.") is None
    assert description("the gentleman said", " in the white waistcoat") is None  # after the verb
    assert description("said the gentleman") is None
    assert description("said the worthy matron", " in the hall") == ("matron", "worthy matron")


WAISTCOAT = """The board sat round the table. Mr. Limbkins was in the chair.

"Boy," said the gentleman in the white waistcoat, "you are a fool."

"What is your name?" asked Mr. Limbkins.

Oliver was frightened. "I know that boy will be hung," said the gentleman in the white
waistcoat, with a frown.

"Take him away," said Mr. Limbkins.
"""


def test_a_marked_out_speaker_who_answers_no_name_is_a_minor_character():
    characters = _discover(WAISTCOAT, "Limbkins", "Oliver")
    waistcoat = _owner(characters, "the gentleman in the white waistcoat")
    assert waistcoat is not None and waistcoat is not _owner(characters, "Mr. Limbkins")
    assert waistcoat.gender == "male"  # a gentleman
    assert _owner(characters, "the gentleman") is None  # the general noun alone is nobody


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
