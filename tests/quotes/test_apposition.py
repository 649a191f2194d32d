"""A role entry ("the chaplain") joins the name the narration sets beside it in apposition."""

from __future__ import annotations

import pytest

from litlens.model import Character
from litlens.quotes.characters import discover_characters
from litlens.quotes.detect import detect_quotations
from litlens.text.paragraphs import find_paragraphs
from tests.quotes.conftest import mentions

# The chaplain speaks under his post; the narration says once who holds it.
CHAPLAIN = """Miss Lavish and Mr. Eager sat in the carriage. Mr. Eager, the English chaplain at Florence, \
had planned the drive himself.

"We shall see the view from the hill," said the chaplain. He pointed to the road.

"How delightful," said Miss Lavish.

"It is the finest in Tuscany," said the chaplain, and he smiled at the driver.

"I do not doubt it," said Miss Lavish. Mr. Eager looked away.
"""


def _discover(text: str) -> list[Character]:
    return discover_characters(text, mentions(text, "Mr. Eager", "Miss Lavish", "Mr. Beebe"),
                               detect_quotations(text, find_paragraphs(text)), model=None)


def _owner(characters: list[Character], alias: str) -> Character | None:
    return next((c for c in characters if alias in c.aliases), None)


def test_a_role_joins_the_name_set_beside_it():
    characters = _discover(CHAPLAIN)
    eager = _owner(characters, "Mr. Eager")
    assert eager is not None and _owner(characters, "the chaplain") is eager
    assert eager.name == "Mr. Eager" and eager.gender == "male"
    assert _owner(characters, "Miss Lavish") is not eager


@pytest.mark.parametrize("sentence", [
    "They were met by the English chaplain, Mr. Eager, who had",
    # "and" before words that are no name ends the apposition, not a series
    "Mr. Eager, the English chaplain, and his wife had",
])
def test_other_appositions_join_too(sentence):
    text = CHAPLAIN.replace("Mr. Eager, the English chaplain at Florence, had", sentence)
    characters = _discover(text)
    assert _owner(characters, "the chaplain") is _owner(characters, "Mr. Eager") is not None


@pytest.mark.parametrize("sentence", [
    # a series: three people, not one described twice
    "Mr. Eager, the chaplain, and Mr. Beebe had",
    # "a chaplain" says what he is, not that he is the chaplain who speaks
    "Mr. Eager, a chaplain at Florence, had",
    # the role after a preposition belongs to another clause
    "On the way to the chaplain, Mr. Eager had",
    # two names beside one role: a post held in turn
    "Mr. Eager, the chaplain, had once been chaplain at Rome; Mr. Beebe, the chaplain, had",
])
def test_no_apposition_no_join(sentence):
    text = CHAPLAIN.replace("Mr. Eager, the English chaplain at Florence, had", sentence)
    characters = _discover(text)
    chaplain = _owner(characters, "the chaplain")
    assert chaplain is not None and chaplain is not _owner(characters, "Mr. Eager")


def test_a_role_of_the_other_sex_stays_apart():
    text = (CHAPLAIN.replace("Mr. Eager, the English chaplain at Florence, had", "Mr. Eager, the landlady, had")
            .replace("said the chaplain. He", "said the landlady. She").replace("said the chaplain, and he",
                                                                                 "said the landlady, and she"))
    characters = _discover(text)
    landlady = _owner(characters, "the landlady")
    assert landlady is not None and landlady is not _owner(characters, "Mr. Eager")


SURGEON = """Major Callendar and Mr. Fielding waited at the club.

"The patient is worse," said the Civil Surgeon. He looked at his watch.

"I am sorry to hear it," said Mr. Fielding.

"He will not last the night," said the Civil Surgeon, and he sat down.

"Then we must send for his brother," said Mr. Fielding.
"""


@pytest.mark.parametrize("sentence, joins", [
    ("Major Callendar, the Civil Surgeon, had come from the hospital.", True),
    # the role's last word alone is another role: an army surgeon is not the Civil Surgeon
    ("Major Callendar, the army surgeon, had come from the hospital.", False),
])
def test_a_role_of_several_words_needs_them_all(sentence, joins):
    text = SURGEON + "\n" + sentence + "\n"
    characters = discover_characters(text, mentions(text, "Major Callendar", "Mr. Fielding"),
                                     detect_quotations(text, find_paragraphs(text)), model=None)
    role = next((c for c in characters if any("surgeon" in a.lower() for a in c.aliases)), None)
    callendar = _owner(characters, "Major Callendar")
    assert role is not None and callendar is not None
    assert (role is callendar) == joins
