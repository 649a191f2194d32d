"""The learned steps of character discovery: the joining procedure, the model file, and
the shipped model on small hand-built texts."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from litlens.quotes.aliases import Found, _Entity
from litlens.quotes.characters import discover_characters, find_entities
from litlens.model import Quotation
from litlens.quotes.forms import _Form
from litlens.quotes.learned import MODEL_FILE, CharacterModel, CharacterModelError, Decision, default_model
from litlens.quotes.people import KEEP_FEATURES, entry_rows, speakers
from litlens.quotes.same_person import FEATURES, join_pairs, pair_rows
from tests.quotes.conftest import mentions


def entity(*words: str, hon: str = "", count: int = 5) -> _Entity:
    return _Entity([_Form(hon=hon, words=tuple(words), count=count)])


# --------------------------------------------------------------------------- joining


def test_join_pairs_joins_confident_pairs_and_not_through_an_unlikely_third():
    father, son, name = entity("Sholto", hon="Major"), entity("Thaddeus", "Sholto"), entity("Sholto", hon="Mr")
    found = Found(None, [father, son, name], [], [], [])
    pairs = [(son, name), (father, name), (father, son)]
    # son ~ "Mr. Sholto" is sure, father ~ "Mr. Sholto" likely, father ~ son very unlikely
    joined = join_pairs(found, pairs, np.array([0.9, 0.6, 0.01]), threshold=0.5, floor=0.5)
    groups = sorted(sorted(" ".join(f.words) for f in e.forms) for e in joined.entities)
    assert groups == [["Sholto"], ["Sholto", "Thaddeus Sholto"]]
    # without the floor the father is joined through "Mr. Sholto"
    loose = join_pairs(found, pairs, np.array([0.9, 0.6, 0.01]), threshold=0.5, floor=0.0)
    assert len(loose.entities) == 1


def test_join_pairs_settles_an_ambiguous_form_whose_candidates_are_one_person():
    lucy, honeychurch = entity("Lucy"), entity("Honeychurch", hon="Miss")
    other = entity("Charlotte")
    form = _Form(hon="Miss", words=("L.",), count=2)
    found = Found(None, [lucy, honeychurch, other], [(form, [lucy, honeychurch])], [], [])
    joined = join_pairs(found, [(lucy, honeychurch), (lucy, other)], np.array([0.8, 0.1]), 0.5, 0.5)
    assert joined.ambiguous == []
    (person,) = [e for e in joined.entities if len(e.forms) > 1]
    assert form in person.forms
    assert found.entities[0].forms == lucy.forms  # the input is not changed


def test_join_pairs_never_joins_a_woman_and_a_man():
    # Caroline Bingley is "Miss Bingley"; "Charles" (her brother) is a man's first name
    sister, brother, caroline = entity("Bingley", hon="Miss"), entity("Charles"), entity("Caroline")
    found = Found(None, [sister, brother, caroline], [], [], [])
    pairs = [(sister, brother), (sister, caroline)]
    joined = join_pairs(found, pairs, np.array([0.9, 0.8]), threshold=0.5, floor=0.5)
    groups = sorted(sorted(" ".join(f.words) for f in e.forms) for e in joined.entities)
    assert groups == [["Bingley", "Caroline"], ["Charles"]]
    # nor through a third entry: "Caroline" joined first carries the sex of the group
    joined = join_pairs(found, [(brother, caroline), (sister, caroline)], np.array([0.7, 0.9]), 0.5, 0.5)
    assert sorted(len(e.forms) for e in joined.entities) == [1, 2]
    # a first name the lexicon does not know says nothing ("Darcy"): the learned join stands
    darcy = entity("Darcy")
    joined = join_pairs(Found(None, [sister, darcy], [], [], []), [(sister, darcy)], np.array([0.9]), 0.5, 0.5)
    assert len(joined.entities) == 1


def test_join_pairs_never_joins_a_speaker_and_the_name_her_speech_gives():
    # "May is very happy," said Mrs. Welland, three times of her four speeches: the mother
    mother, may = entity("Welland", hon="Mrs"), entity("May")
    mother.forms[0].tags = 4
    mother.forms[0].speaks_of[("", ("May",))] = 3
    joined = join_pairs(Found(None, [mother, may], [], [], []), [(mother, may)], np.array([0.9]), 0.5, 0.5)
    assert len(joined.entities) == 2
    # once in many speeches is a person naming herself: the join stands
    mother.forms[0].tags, mother.forms[0].speaks_of[("", ("May",))] = 40, 1
    joined = join_pairs(Found(None, [mother, may], [], [], []), [(mother, may)], np.array([0.9]), 0.5, 0.5)
    assert len(joined.entities) == 1


# --------------------------------------------------------------------------- model file


def test_model_file_refuses_what_is_not_a_character_model(tmp_path):
    bad = tmp_path / "model.json"
    bad.write_text("not json at all")
    with pytest.raises(CharacterModelError, match="not a LitLens character model: not JSON"):
        CharacterModel.load(bad)
    bad.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(CharacterModelError, match="expected format"):
        CharacterModel.load(bad)


@pytest.mark.skipif(not MODEL_FILE.is_file(), reason="the shipped character model is not built")
def test_shipped_model_loads_with_its_features_and_cv_thresholds():
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    assert doc["same_person"]["features"] == list(FEATURES)
    assert len(doc["trained_on"]) == 20
    assert "cv" in doc and "figures" in doc["cv"]
    model = CharacterModel.load(MODEL_FILE)
    assert model.same_person is not None and 0 < model.same_person.threshold < 1
    if model.person is not None:
        assert doc["person"]["features"] == list(KEEP_FEATURES)
        assert 0 < model.person.threshold < 1
    # a round trip through JSON gives the same probabilities
    again = CharacterModel.from_json(model.to_json())
    rows = np.random.default_rng(0).random((5, len(FEATURES)))
    assert np.allclose(model.same_person.probabilities(rows), again.same_person.probabilities(rows))
    # each step is the average of its bagged models; a file with one model per step still reads
    boosters = model.same_person.booster
    assert isinstance(boosters, list) and len(boosters) > 1
    expected = np.mean([b.predict(rows) for b in boosters], axis=0)
    assert np.allclose(model.same_person.probabilities(rows), expected)
    single = CharacterModel(Decision(boosters[0], 0.5), None)
    assert isinstance(json.loads(single.to_json())["same_person"]["lightgbm"], str)
    assert np.allclose(CharacterModel.from_json(single.to_json()).same_person.probabilities(rows), boosters[0].predict(rows))


# --------------------------------------------------------------------------- on a text

VISIT = """Mr. Sholto met us at the door of his house. He was a small man with a bald head.
"Come in," said Mr. Sholto. He led us down a passage to a warm room.
Holmes looked at Mr. Sholto and he said nothing. Mary sat down by the fire.
"I am Mr. Thaddeus Sholto," he said. "You must forgive my nerves."
Mr. Thaddeus Sholto poured the wine. He was shaking, and he spilled it.
"My brother waits for us," said Mr. Thaddeus Sholto. He put on his coat.
Holmes nodded. "Then we must go," said Holmes. Mary looked at him and she smiled.
"It is late," said Mr. Sholto, and he called a cab. Mr. Sholto talked all the way.
Mary listened to him. She was tired. Holmes smoked his pipe, and he watched the road.
"I am afraid," said Mary. She held her bag, and she looked out at the rain.
We drove to Norwood. The house at Norwood was dark, and the gate at Norwood was shut.
"""
VISIT_NAMES = ("Mr. Sholto", "Mr. Thaddeus Sholto", "Holmes", "Mary", "Norwood")


def test_learned_features_are_one_row_per_pair_and_per_entry():
    found = find_entities(VISIT, mentions(VISIT, *VISIT_NAMES))
    pairs, rows = pair_rows(found)
    assert rows.shape == (len(pairs), len(FEATURES))
    assert entry_rows(found).shape == (len(found.entities), len(KEEP_FEATURES))
    assert np.isfinite(rows).all()


GINO = """Gino came into the room, and he bowed. Signor Carella sat down, and he lit his cigar.
"Good evening," said Gino. Gino laughed, and he sat. Signor Carella smiled, and he was loud.
Lilia looked up, and she was happy. "I am tired," said Lilia. Lilia sighed, and she went out.
Perfetta came in, and she brought the lamp. Perfetta went out again, and she shut the door.
Perfetta sang, and she smiled.
"""


def test_a_first_name_alone_and_a_title_with_a_surname_alone_are_complements():
    # "Gino" is never written with a surname and "Signor Carella" never with a first name: the
    # pair features say so, and count the other men each could pair with (none here; the
    # women Lilia and Perfetta are no rivals for a man's title)
    found = find_entities(GINO, mentions(GINO, "Gino", "Signor Carella", "Lilia", "Perfetta"))
    pairs, rows = pair_rows(found)
    column = {name: k for k, name in enumerate(FEATURES)}
    by_names = {frozenset(" ".join((f.hon, *f.words)).strip() for e in pair for f in e.forms): row
                for pair, row in zip(pairs, rows)}
    gino = by_names[frozenset({"Gino", "Signor Carella"})]
    assert gino[column["complement"]] == 1.0
    assert gino[column["complement_rivals_a"]] == 0.0 and gino[column["complement_rivals_b"]] == 0.0
    lilia = by_names[frozenset({"Lilia", "Signor Carella"})]
    assert lilia[column["complement"]] == 1.0
    assert lilia[column["complement_rivals_a"]] + lilia[column["complement_rivals_b"]] == 1  # Gino, a man
    assert by_names[frozenset({"Gino", "Lilia"})][column["complement"]] == 0.0  # two first names


@pytest.mark.skipif(not MODEL_FILE.is_file(), reason="the shipped character model is not built")
def test_shipped_model_ranks_one_man_above_two_people_and_keeps_the_speakers():
    # the rules keep "Mr. Sholto" (named three times before his full name) apart from
    # "Mr. Thaddeus Sholto"; the same-person model scores that pair above every pair of
    # two people, by a clear margin (retrained models give 4.6 to 10 times), and the person
    # step loses a place but nobody who speaks
    rules = discover_characters(VISIT, mentions(VISIT, *VISIT_NAMES), model=None)
    assert len({c.name for c in rules if {"Mr. Sholto", "Mr. Thaddeus Sholto"} & set(c.aliases)}) == 2
    model = default_model()
    assert model is not None
    pairs, rows = pair_rows(find_entities(VISIT, mentions(VISIT, *VISIT_NAMES)))
    scores = {tuple(sorted(" ".join(f.words) for e in pair for f in e.forms)): p
              for pair, p in zip(pairs, model.same_person.probabilities(rows))}
    same = scores.pop(("Sholto", "Thaddeus Sholto"))
    assert same > 3 * max(scores.values())
    people = discover_characters(VISIT, mentions(VISIT, *VISIT_NAMES))
    names = {a: c.name for c in people for a in c.aliases}
    assert "Holmes" in names and "Mary" in names  # both speak
    assert names["Holmes"] != names["Mary"]
    assert "Norwood" not in names
    assert any(n in names for n in ("Mr. Sholto", "Mr. Thaddeus Sholto"))


def test_discover_characters_without_a_model_is_the_name_rules_alone():
    rules = discover_characters(VISIT, mentions(VISIT, *VISIT_NAMES), model=None)
    none = CharacterModel(None, None)
    assert [c.aliases for c in discover_characters(VISIT, mentions(VISIT, *VISIT_NAMES), model=none)] == \
        [c.aliases for c in rules]
    assert Decision(None, 0.5).probabilities(np.zeros((0, 3))).shape == (0,)


def test_a_name_addressed_after_you_counts_as_spoken_to():
    # '"I sent for you, Annie, because ..."': a maid named a few times and addressed inside a
    # sentence is someone spoken to, so the person step keeps her whatever it scores
    text = ('Poirot sent for Annie. Annie came up the stairs.\n\n'
            '"I sent for you, Annie, because you may know something," said Poirot.\n\n'
            'Annie blushed. "I am sure, sir, that I never saw it."\n')
    found = find_entities(text, mentions(text, "Annie", "Poirot"))
    annie = next(e for e in found.entities if any(f.words == ("Annie",) for f in e.forms))
    assert sum(f.addressed for f in annie.forms) == 1
    spoken_to = dict(zip((id(e) for e in found.entities if e.forms), speakers(found)))
    assert spoken_to[id(annie)]
    # a list in narration is no address
    listed = find_entities("Annie, Dorcas, and Poirot went in.", mentions("Annie, Dorcas, and Poirot went in.", "Annie", "Dorcas", "Poirot"))
    assert all(f.addressed == 0 for e in listed.entities for f in e.forms)


def test_a_greeting_or_a_quoted_title_at_a_quotations_edge_is_nobody_addressed():
    # '"Merry Christmas, Marilla!"' and '"Central Italy," by Baedeker' put capitalised words
    # where a name in address goes. The NER calls neither a person, neither has a title, and
    # the book writes "merry" and "central" in lower case: being "addressed" does not keep
    # them. Matthew (a person to the NER), Mrs. Barry (titled) and Kafarol (a name the NER
    # does not know, but never written in lower case) stay spoken to.
    text = ('Marilla came down early to a merry fire. Anne ran to the stairs.\n\n'
            '"Merry Christmas, Marilla! Isn\'t it lovely?" said Anne.\n\n'
            'On the central table lay "Central Italy," by Baedeker, and a letter.\n\n'
            '"Merry Christmas, Matthew!" said Anne at the door.\n\n'
            'Philip took up "Central Italy," again.\n\n'
            '"Good morning, Mrs. Barry!" cried Anne at the gate.\n\n'
            '"Kafarol, you are late," said Philip, and he looked at Kafarol.\n\n'
            '"Kafarol, sit down," said Anne.\n')
    found = find_entities(text, mentions(text, "Marilla", "Anne", "Matthew", "Philip"))
    spoken_to = dict(zip((id(e) for e in found.entities if e.forms), speakers(found)))

    def entry(*words):
        return next(e for e in found.entities if any(f.words == words for f in e.forms))

    for words in (("Merry", "Christmas"), ("Central", "Italy")):
        assert sum(f.vocatives for f in entry(*words).forms) >= 1
        assert not spoken_to[id(entry(*words))]
    for words in (("Matthew",), ("Barry",), ("Kafarol",)):
        assert spoken_to[id(entry(*words))]
    assert not any(f.ner for f in entry("Kafarol").forms)


def test_a_title_that_noun_cues_name_speaks_for_the_entry_bearing_it():
    # "said the general" speaks for General Fields, whom no speech verb names: the person
    # step must keep him, whatever his surname (a common word, a place's last word) scores
    text = ('General Fields walked up the fields. General Fields was a tall man.\n\n'
            '"We dine at five," said the general.\n\n"Very well," said Catherine.\n\n'
            '"And we ride after," said the general.\n')
    found = find_entities(text, mentions(text, "General Fields", "Catherine"))
    quotes = [Quotation([m.span(1)], "anaphoric", "the general")
              for m in re.finditer(r'"([^"]*)," said the general', text)]
    general = next(e for e in found.entities if any(f.hon == "General" for f in e.forms))
    assert not any(f.tags for f in general.forms)
    speaking = dict(zip((id(e) for e in found.entities if e.forms), speakers(found, quotes)))
    assert speaking[id(general)]
    assert not dict(zip((id(e) for e in found.entities if e.forms), speakers(found)))[id(general)]


def test_a_name_explicit_cues_give_twice_speaks_whatever_the_verb():
    # "expostulated Mr. Todd": the cue grammar reads every speech verb of the lexicon, the
    # speech tags of discovery only the common ones; a name two explicit cues give is a speaker
    text = ('Mr. Todd sat by the fire. Mr. Todd was old, and Mr. Hale came in late.\n\n'
            '"Read to me," expostulated Mr. Todd.\n\n"Not tonight," said Tony.\n\n'
            '"You will read," expostulated Mr. Todd.\n\n"Good night," Mr. Hale expostulated.\n')
    found = find_entities(text, mentions(text, "Mr. Todd", "Tony", "Mr. Hale"))
    quotes = [Quotation([m.span(1)], "explicit", m.group(2).strip(" .\n"))
              for m in re.finditer(r'"([^"]*)," ([^"\n]*)', text)]
    assert [q.referring_expression for q in quotes][:2] == ["expostulated Mr. Todd", "said Tony"]
    todd = next(e for e in found.entities if any(f.words == ("Todd",) for f in e.forms))
    hale = next(e for e in found.entities if any(f.words == ("Hale",) for f in e.forms))
    assert not any(f.tags for f in todd.forms)
    speaking = dict(zip((id(e) for e in found.entities if e.forms), speakers(found, quotes)))
    assert speaking[id(todd)]
    assert not speaking[id(hale)]  # one cue is not enough


def test_speech_tags_read_verbs_that_take_no_person_as_object():
    # "quoth Sancho", "snapped Mrs. Beaver": the name after such a verb is its subject, a
    # speaker the NER may miss; "told Sancho" would be the one spoken to, and is not read
    text = ('"Let it be so," quoth Sancho.\n\n"Nonsense," snapped Mrs. Beaver.\n\n'
            '"So be it," quoth Sancho.\n\nHe told Sancho nothing.\n')
    found = find_entities(text, mentions(text))
    tags = {" ".join(f.words): f.tags for e in found.entities for f in e.forms}
    assert tags.get("Sancho") == 2 and tags.get("Beaver") == 1


def test_the_speech_tag_verbs_are_speech_verbs_of_the_lexicon():
    # discovery's tag list is a chosen part of the lexicon (no verb taking the one spoken to
    # as object); a verb added to it alone would be a speaker the cue grammar never reads
    from litlens.quotes.lexicon import SPEECH_VERBS
    from litlens.quotes.names import _SPEECH_VERBS

    single = [v for v in _SPEECH_VERBS.split("|") if " " not in v]
    assert len(single) > 80 and not set(single) - SPEECH_VERBS
    assert not {"told", "informed", "assured", "admitted", "announced"} & set(single)
