"""Merge suggestions from the dialogue (``litlens.quotes.answers.dialogue_leads``), each on
hand-built text: a first name a relative calls someone by, and a name in address that one
other entry mostly answers; and an entry that is only a shorter form of names listed under
others. They are suggestions for the scholar, never joins."""

from __future__ import annotations

from litlens.model import Character
from litlens.quotes.characters import discover_characters, suggest_merges
from litlens.quotes.detect import detect_quotations
from litlens.text.paragraphs import find_paragraphs
from tests.quotes.conftest import mentions


def _suggest(text: str, *names: str) -> tuple[list[Character], list]:
    persons = mentions(text, *names)
    quotations = detect_quotations(text, find_paragraphs(text))
    characters = discover_characters(text, persons, quotations, model=None)
    return characters, suggest_merges(text, persons, quotations, characters, model=None)


def _entry(characters: list[Character], alias: str) -> int:
    found = [k for k, c in enumerate(characters) if alias in c.aliases]
    assert len(found) == 1, (alias, [c.name for c in characters])
    return found[0]


def _pairs(characters: list[Character], suggestions: list) -> dict[frozenset, object]:
    return {frozenset((characters[s.keep].name, characters[s.fold].name)): s for s in suggestions}


# A husband calls his wife by the first name the narration never gives her.
SPOUSES = """Mr. Hall came up from the cellar. He was out of breath.

"Janet," said Mr. Hall, "the door of his room is open."

Mrs. Hall put down her cup. She looked at him.

"It was shut an hour ago," said Mrs. Hall.

"Janet," said Mr. Hall, "come and see for yourself." He went up the stairs.

Mrs. Hall followed him slowly, and she was frightened.
"""


def test_a_first_name_a_husband_calls_his_wife_by_is_suggested_as_hers():
    characters, suggestions = _suggest(SPOUSES, "Mr. Hall", "Mrs. Hall", "Janet")
    wife, janet = _entry(characters, "Mrs. Hall"), _entry(characters, "Janet")
    assert wife != janet  # one answer joins nothing: the scholar decides
    lead = _pairs(characters, suggestions)[frozenset(("Mrs. Hall", "Janet"))]
    assert lead.reason == "family" and (lead.keep, lead.fold) == (wife, janet)
    assert lead.evidence == 'Mr. Hall says "Janet" (2 of 2); the one woman of the family with no first name'
    assert not any(s.reason == "family" and _entry(characters, "Mr. Hall") in (s.keep, s.fold) for s in suggestions)


def test_a_first_name_with_two_women_of_the_family_to_choose_from_is_no_lead():
    text = SPOUSES.replace("Mrs. Hall followed him slowly", "Mrs. Hall and Miss Hall followed him slowly")
    text += '\n"Who is there?" asked Miss Hall. She held the lamp high.\n'
    characters, suggestions = _suggest(text, "Mr. Hall", "Mrs. Hall", "Miss Hall", "Janet")
    assert not any(s.reason == "family" for s in suggestions)


def test_a_first_name_spoken_by_someone_of_its_own_sex_is_no_lead():
    # a brother speaking to the gardener: "Mr. Cavendish" may be the speaker himself
    text = """John Cavendish and Lawrence Cavendish walked across the lawn. Mr. Cavendish was tired.

"Albert," said John Cavendish, "the roses want water."

Albert touched his hat. He was an old man, and he was slow.

"Yes, sir," said Albert.

Albert went off to the sheds. He came back with the can.

"Albert," said John Cavendish, "and the beds by the house." He went in.

"Lawrence is late," said Mr. Cavendish. He looked at his watch.
"""
    characters, suggestions = _suggest(text, "John Cavendish", "Lawrence Cavendish", "Lawrence", "Mr. Cavendish",
                                       "Albert")
    assert characters[_entry(characters, "Albert")].gender == "male"
    assert _entry(characters, "Mr. Cavendish") != _entry(characters, "John Cavendish")  # one of two brothers
    assert not any(s.reason == "family" for s in suggestions)


# "Fagin" answered twice by "the Jew" and once by Charley: under the share that joins.
ANSWERED = """The Jew sat by the fire. Charley Bates lay on the floor.

"Fagin," said the Dodger, "is the boy asleep?"

"Fast asleep, my dear," said the Jew. He rubbed his hands.

"Fagin, what of the plate?" asked the Dodger.

"Safe, my dear, safe," said the Jew.

"Fagin, are we to go out tonight?" asked the Dodger.

"Not tonight," said Charley Bates. He laughed.
"""


def test_a_name_in_address_mostly_answered_by_one_entry_is_suggested_as_his():
    names = ("the Jew", "Fagin", "the Dodger", "Charley Bates")
    characters, suggestions = _suggest(ANSWERED, *names)
    jew, fagin = _entry(characters, "the Jew"), _entry(characters, "Fagin")
    assert jew != fagin  # 2 answers of 3: short of the share that joins
    lead = _pairs(characters, suggestions)[frozenset((characters[jew].name, characters[fagin].name))]
    assert lead.reason == "answers" and lead.probability == round(2 / 3, 3)
    assert '"Fagin"' in lead.evidence and "2 of 3" in lead.evidence


# Five answers of seven by "the Jew" (0.71), two by Charley Bates: over the share that joins
# (0.7). Oliver Twist's "Fagin" is answered 16 times of 22 by "the Jew" (twice by Sikes).
MOSTLY_ANSWERED = ANSWERED + """
"Fagin, where is Nancy?" asked the Dodger.

"At the Cripples, my dear," said the Jew.

"Fagin, will Bill come?" asked the Dodger.

"Bill comes when he likes," said Charley Bates.

"Fagin, the candle is out," said the Dodger.

"Light it, my dear," said the Jew.

"Fagin, is it raining?" asked the Dodger.

"It is, my dear," said the Jew. He shivered.
"""


def test_a_name_in_address_answered_seven_times_in_ten_by_one_entry_is_his():
    characters, suggestions = _suggest(MOSTLY_ANSWERED, "the Jew", "Fagin", "the Dodger", "Charley Bates")
    assert _entry(characters, "the Jew") == _entry(characters, "Fagin")
    assert _entry(characters, "Charley Bates") != _entry(characters, "Fagin")


# The same share of answers between two men of different surnames: two people, so no lead
# (a woman's surname may change when she marries, a man's does not).
SURNAMES = """Holmes sat by the fire. Dr. Watson and Mr. Jones stood at the window.

"Mr. Jones," said Holmes, "is the cab at the door?"

"It is waiting," said Dr. Watson. He looked down into the street.

"Mr. Jones, have you the warrant?" asked Holmes.

"In my pocket," said Dr. Watson. He patted his coat.

"Mr. Jones, shall we go?" asked Holmes.

"At once," said Mr. Jones. He took up his hat.
"""


def test_a_name_in_address_answered_by_a_man_of_another_surname_is_no_lead():
    from litlens.quotes.characters import _surnames

    characters, suggestions = _suggest(SURNAMES, "Holmes", "Dr. Watson", "Mr. Jones")
    watson, jones = _entry(characters, "Dr. Watson"), _entry(characters, "Mr. Jones")
    assert watson != jones
    assert frozenset((characters[watson].name, characters[jones].name)) not in _pairs(characters, suggestions)
    assert _surnames([characters[watson], characters[jones]]) == [{"watson"}, {"jones"}]
    # the answers alone would suggest them: the same text with a woman's two names does
    women = SURNAMES.replace("Dr. Watson", "Mrs. Elton").replace("Mr. Jones", "Miss Hawkins")
    women = women.replace("He ", "She ").replace("his ", "her ")
    characters, suggestions = _suggest(women, "Holmes", "Mrs. Elton", "Miss Hawkins")
    wife, miss = _entry(characters, "Mrs. Elton"), _entry(characters, "Miss Hawkins")
    assert _pairs(characters, suggestions)[frozenset((characters[wife].name, characters[miss].name))].reason == "answers"


def test_surnames_are_read_from_full_names_and_surname_titles():
    from litlens.quotes.characters import _surnames

    entries = [
        Character("Mr. Athelney Jones", ["Mr. Athelney Jones", "Athelney Jones"], "male"),
        Character("Inspector Ratcliffe", ["Inspector Ratcliffe"], "male"),
        Character("Sir John", ["Sir John"], "male"),  # "Sir" takes a first name
        Character("Mrs. John Knightley", ["Mrs. John Knightley"], "female"),  # her surname may be new
        Character("Miss Hawkins", ["Miss Hawkins", "Augusta Hawkins"], "female"),
        Character("the Collector", ["the Collector"], "male"),
        Character("Ronny", ["Ronny"], "male"),
    ]
    assert _surnames(entries) == [{"jones"}, {"ratcliffe"}, set(), set(), {"hawkins"}, set(), set()]


# A brother calls his sister by her first name; their mother, never given one, is named
# beside her in the narration: two people, so no lead.
SISTER = """Henry Archer came home late; he was tired, and he went to the drawing-room. Mrs. Archer and Janey were sitting by the lamp, and they looked up.

"Janey," said Henry Archer, "where is mother's shawl?"

"In the hall," said Mrs. Archer. She went on sewing.

Mrs. Archer and Janey talked of the Mingotts all evening. Janey was his sister, and she was plain.

"Janey," said Henry Archer, "you will tire your eyes." He laughed.

"I like to read," said Janey. Mrs. Archer sighed, and Janey closed her book.

Next day Mrs. Archer and Janey drove to the Wellands. Janey wore her grey dress.
"""


def test_a_first_name_named_beside_the_only_woman_of_the_family_is_no_lead():
    characters, suggestions = _suggest(SISTER, "Henry Archer", "Mrs. Archer", "Janey")
    assert _entry(characters, "Janey") != _entry(characters, "Mrs. Archer")
    assert characters[_entry(characters, "Janey")].gender == "female"
    assert characters[_entry(characters, "Henry Archer")].gender == "male"
    assert not suggestions


# "Tom" is the first name of two men the book writes in full, and written alone more often
# than both, so the name rules keep it as an entry of its own; it is offered as a shorter
# form of each.
TWO_TOMS = """Tom Chitling came up the stairs with Betsy. He was a stout young man.

"He says his name is Tom White," said the officer. It was the name the boy gave.

"Stick up to her, Tom," said Fagin. "She's a fine girl." Fagin rubbed his hands.

"I mean to," replied Tom. Tom looked at Betsy, and Tom laughed.

"Who is the boy?" asked Tom Chitling. Nobody answered him, and Tom sat down.

"Tom White, you will come with me," said the officer.
"""


def test_a_first_name_two_full_names_share_is_suggested_for_each_not_joined():
    characters, suggestions = _suggest(TWO_TOMS, "Tom Chitling", "Tom White", "Tom", "Fagin", "Betsy")
    tom, chitling, white = (_entry(characters, a) for a in ("Tom", "Tom Chitling", "Tom White"))
    assert len({tom, chitling, white}) == 3  # ambiguous in the text: the scholar decides
    pairs = _pairs(characters, suggestions)
    for other, also in ((chitling, "Tom White"), (white, "Tom Chitling")):
        lead = pairs[frozenset((characters[tom].name, characters[other].name))]
        assert lead.reason == "shorter" and lead.probability == 0.25  # half, shared by two names
        assert (lead.keep, lead.fold) == (other, tom)  # into the full name, though "Tom" is named more
        assert lead.evidence.startswith(f'"Tom" is a shorter form of "{characters[other].aliases[0]}"')
        assert f'(and of "{also}")' in lead.evidence
    assert sum(s.reason == "shorter" for s in suggestions) == 2  # Fagin and Betsy shorten nobody


def test_what_counts_as_a_shorter_form_of_a_name():
    from litlens.quotes.characters import _shortens

    assert _shortens("Mr. Dashwood", "Mr. John Dashwood")
    assert _shortens("Tom", "Tom Chitling") and _shortens("Lesley", "Mrs. Lesley")
    assert not _shortens("Mrs. Dashwood", "Mrs. John Dashwood")  # her husband's name: another woman
    assert not _shortens("Miss Dashwood", "Mr. John Dashwood")  # another title
    assert not _shortens("John", "Mrs. John Dashwood")  # her husband's first name
    assert not _shortens("Mr. John Dashwood", "Mr. Dashwood")
    assert not _shortens("the Doctor", "the Doctor Smith")
