"""Training the learned character steps from books with known character lists."""

from __future__ import annotations

import numpy as np
import pytest

from litlens.attribution.train_characters import (
    SEEDS,
    UNMAPPED_WEIGHT,
    character_book,
    distinct_people,
    entity_labels,
    train_character_model,
)
from litlens.model import Character
from litlens.quotes.characters import discover_characters, find_entities
from litlens.quotes.learned import CharacterModel
from litlens.quotes.people import KEEP_FEATURES
from litlens.quotes.same_person import FEATURES
from tests.quotes.conftest import mentions
from tests.quotes.test_character_learned import VISIT, VISIT_NAMES

GOLD = [
    Character("Thaddeus Sholto", ["Thaddeus Sholto", "Mr. Thaddeus Sholto", "Mr. Sholto"], "male"),
    Character("Sherlock Holmes", ["Sherlock Holmes", "Holmes"], "male"),
    Character("Mary Morstan", ["Mary Morstan", "Mary"], "female"),
]
# the same scene with other names, so two books can train
VISIT2 = (VISIT.replace("Thaddeus", "Bartholomew").replace("Sholto", "Norton").replace("Holmes", "Lestrade")
          .replace("Mary", "Agnes").replace("Norwood", "Lambeth"))
GOLD2 = [
    Character("Bartholomew Norton", ["Bartholomew Norton", "Mr. Bartholomew Norton", "Mr. Norton"], "male"),
    Character("Inspector Lestrade", ["Lestrade"], "male"),
    Character("Agnes", ["Agnes"], "female"),
]
NAMES2 = ("Mr. Norton", "Mr. Bartholomew Norton", "Lestrade", "Agnes", "Lambeth")


def _books():
    return [character_book("visit", VISIT, mentions(VISIT, *VISIT_NAMES), [], GOLD),
            character_book("visit2", VISIT2, mentions(VISIT2, *NAMES2), [], GOLD2)]


def test_entries_and_pairs_are_labelled_by_the_known_list():
    found = find_entities(VISIT, mentions(VISIT, *VISIT_NAMES))
    labels = entity_labels(found, GOLD)
    named = {" ".join(f.words): g for e, g in zip(found.entities, labels) for f in e.forms}
    assert named["Holmes"] == 1 and named["Mary"] == 2
    assert named["Sholto"] == named["Thaddeus Sholto"] == 0  # "Mr. Sholto" is one of his aliases
    book = _books()[0]
    assert book.rows.shape == (len(book.pairs), len(FEATURES))
    same = {tuple(sorted(" ".join(f.words) for e in pair for f in e.forms))
            for pair, y in zip(book.pairs, book.labels) if y}
    assert same == {("Sholto", "Thaddeus Sholto")}
    # a pair with an entry that stands for nobody weighs less than two known people
    mapped = dict(zip(map(id, book.found.entities), entity_labels(book.found, GOLD)))
    for (a, b), w in zip(book.pairs, book.weights):
        assert w == (1.0 if mapped[id(a)] is not None and mapped[id(b)] is not None else UNMAPPED_WEIGHT)
    assert UNMAPPED_WEIGHT < 1.0

def test_a_trained_model_acts_at_the_given_thresholds_and_round_trips():
    model = train_character_model(_books(), 0.2, 0.5, 0.7, {"trained_on": ["visit", "visit2"], "fold": 0})
    assert model.same_person is not None and model.person is not None
    assert (model.same_person.threshold, model.same_person.floor, model.person.threshold) == (0.2, 0.5, 0.7)
    assert model.meta == {"trained_on": ["visit", "visit2"], "fold": 0}
    again = CharacterModel.from_json(model.to_json())
    rows = np.random.default_rng(0).random((4, len(FEATURES)))
    assert np.allclose(model.same_person.probabilities(rows), again.same_person.probabilities(rows))
    assert isinstance(model.person.booster, list) and len(model.person.booster) == SEEDS  # bagged, averaged
    assert all(b.num_feature() == len(KEEP_FEATURES) for b in model.person.booster)
    assert len(again.person.booster) == SEEDS
    # discovery runs with it, and nobody who speaks is left out
    names = {a for c in discover_characters(VISIT, mentions(VISIT, *VISIT_NAMES), model=again) for a in c.aliases}
    assert {"Holmes", "Mary"} <= names
    # without a person threshold there is no "a person?" step
    assert train_character_model(_books(), 0.2, 0.5, None).person is None


def test_training_needs_two_books():
    with pytest.raises(ValueError, match="at least two books"):
        train_character_model(_books()[:1], 0.2, 0.5, 0.7)


def test_a_married_form_of_a_maiden_surname_is_learned_as_another_woman():
    # PDNC gives Charlotte Lucas her mother's "Lady Lucas"; the pair must not teach a join
    text = ("Lady Lucas called on Mrs. Bennet. \"Charlotte is at home,\" said Lady Lucas. Charlotte Lucas "
            "smiled. \"Mama is tired,\" said Charlotte. Lady Lucas went home, and Charlotte stayed.")
    gold = [Character("Charlotte Lucas", ["Charlotte Lucas", "Miss Lucas", "Lady Lucas", "Charlotte", "Mrs. Collins"],
                      "female"),
            Character("Mrs. Bennet", ["Mrs. Bennet"], "female")]
    people = distinct_people(gold)
    assert [c.name for c in people] == ["Charlotte Lucas", "Mrs. Bennet", "Lady Lucas"]
    assert "Lady Lucas" not in people[0].aliases and "Mrs. Collins" in people[0].aliases
    assert gold[0].aliases[2] == "Lady Lucas"  # the list itself, which scores use, is left as it is
    book = character_book("lucas", text, mentions(text, "Lady Lucas", "Mrs. Bennet", "Charlotte Lucas", "Charlotte"),
                          [], gold)
    mapped = dict(zip(map(id, book.found.entities), entity_labels(book.found, people)))
    lady = next(e for e in book.found.entities if any(f.hon and f.words == ("Lucas",) for f in e.forms))
    assert mapped[id(lady)] == 2
    with_lady = [y for (a, b), y in zip(book.pairs, book.labels) if lady in (a, b)]
    assert with_lady and not any(with_lady)
    # a woman known by her own name and her married one stays one person
    assert distinct_people([Character("Rachel Lynde", ["Rachel Lynde", "Mrs. Lynde"], "female")])[0].aliases == [
        "Rachel Lynde", "Mrs. Lynde"]
