"""Training the learned steps of character discovery on novels with known character lists.

The two classifiers of :mod:`litlens.quotes.learned` ("same person?" over pairs of entries,
"a person?" over entries) learn from books whose characters are known, such as PDNC's
``character_info.csv``. An entry of the name rules (:func:`~litlens.quotes.characters.find_entities`)
stands for the known character it maps to as ``litlens eval attribution`` maps discovered
characters (:func:`~litlens.attribution.evaluate.map_discovered_to_gold`):

* a pair is "same" when both entries stand for one character (by the list as
  :func:`distinct_people` reads it); a pair with an entry that
  stands for no character is a weaker "different" (:data:`UNMAPPED_WEIGHT`: the list may
  simply not name a role or a one-off spelling);
* an entry is "a person" when it stands for a character, read after the joining — with each
  book joined by a pair model that did not see it (:data:`FOLDS`-fold inside the training
  books), as the person step will meet the joins of an unseen book.

``benchmarks/characters_train.py`` chooses the thresholds by leave-novels-out CV and writes
the shipped model with these functions; ``litlens eval attribution --characters
discovered`` trains one model per fold with them, so no evaluated novel is in its own
character model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from litlens.attribution.evaluate import map_discovered_to_gold
from litlens.model import Character, EntityMention, Quotation
from litlens.quotes.aliases import Found
from litlens.quotes.characters import _aliases, _main_form, find_entities
from litlens.quotes.learned import CharacterModel, Decision
from litlens.quotes.people import KEEP_FEATURES, entry_rows
from litlens.quotes.same_person import FEATURES, join_pairs, pair_rows

PARAMS = {
    "objective": "binary", "learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 20,
    "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0,
    "seed": 0, "deterministic": True, "num_threads": 1, "verbose": -1,
}
ROUNDS = 300
SEEDS = 5  # bagged models averaged (5 and 9 measured alike by leave-novels-out CV; 1 splits more)
UNMAPPED_WEIGHT = 0.3
FOLDS = 5


@dataclass
class CharacterBook:
    """One training book: the name rules' entries, their candidate pairs and labels."""

    name: str
    text: str
    detected: list[Quotation]
    gold_characters: list[Character]
    found: Found
    pairs: list[tuple[Any, Any]]
    rows: np.ndarray
    labels: np.ndarray
    weights: np.ndarray


_MAIDEN = re.compile(r"miss\s+(?:\S+\s+)*?(\S+)$", re.IGNORECASE)
_MARRIED = re.compile(r"(?:mrs|lady|madame|mme)\.?\s+(\S+)$", re.IGNORECASE)


def distinct_people(gold_characters: Sequence[Character]) -> list[Character]:
    """The known list with each married form of a maiden surname split off as a person of
    its own.

    Hand-made lists slip: PDNC gives Charlotte Lucas ("Miss Lucas") her mother's "Lady
    Lucas" too. No woman is both "Miss Lucas" and "Lady Lucas" (she would have married a man
    of her own surname), so "Lady Lucas" is another woman of the family. Learned as written,
    the slip teaches the same-person step to join a mother to her daughter. Training labels
    only: scores keep the list as given.
    """
    out = list(gold_characters)
    for ci, c in enumerate(gold_characters):
        names = [c.name, *c.aliases]
        maiden = {m.group(1).lower() for a in names if (m := _MAIDEN.fullmatch(a.strip()))}
        slips = [a for a in names if (m := _MARRIED.fullmatch(a.strip())) and m.group(1).lower() in maiden]
        if slips and len(slips) < len(names):
            kept = [a for a in c.aliases if a not in slips]
            name = c.name if c.name not in slips else kept[0]
            out[ci] = replace(c, name=name, aliases=kept)
            out.extend(Character(name=a, aliases=[a], gender=c.gender) for a in dict.fromkeys(slips))
    return out


def entity_labels(found: Found, gold_characters: Sequence[Character]) -> list[int | None]:
    """The known character each entry of ``found`` stands for (None: none)."""
    pseudo = []
    for e in found.entities:
        aliases: list[str] = []
        for f in [_main_form(e)] + e.forms:
            for a in _aliases(f):
                if a not in aliases:
                    aliases.append(a)
        pseudo.append(Character(name=aliases[0], aliases=aliases))
    return map_discovered_to_gold(pseudo, list(gold_characters))


def character_book(name: str, text: str, persons: list[EntityMention], detected: list[Quotation],
                   gold_characters: list[Character]) -> CharacterBook:
    """What the two classifiers learn from in one book (``detected``: the detector's quotations)."""
    found = find_entities(text, persons, detected)
    mapped = entity_labels(found, distinct_people(gold_characters))
    index = {id(e): k for k, e in enumerate(found.entities)}
    pairs, rows = pair_rows(found)
    labels = np.array([int(mapped[index[id(a)]] is not None and mapped[index[id(a)]] == mapped[index[id(b)]])
                       for a, b in pairs], dtype=int)
    weights = np.array([1.0 if mapped[index[id(a)]] is not None and mapped[index[id(b)]] is not None
                        else UNMAPPED_WEIGHT for a, b in pairs])
    return CharacterBook(name, text, detected, gold_characters, found, pairs, rows, labels, weights)


def train_booster(rows: Sequence[np.ndarray], labels: Sequence[np.ndarray], weights: Sequence[np.ndarray] | None,
                  features: Sequence[str]) -> Any:
    """LightGBM binary classifiers over the stacked rows of several books, one per bagging
    seed; :class:`~litlens.quotes.learned.Decision` averages their probabilities."""
    import lightgbm

    x = np.vstack([r.reshape(-1, len(features)) for r in rows])
    y = np.concatenate(labels)
    w = np.concatenate(weights) if weights is not None else None
    data = lightgbm.Dataset(x, y, weight=w, feature_name=list(features), free_raw_data=False)
    # a few dozen positive pairs in all: the average of several bagged models is steadier
    return [lightgbm.train({**PARAMS, "seed": seed}, data, num_boost_round=ROUNDS) for seed in range(SEEDS)]


def held_out_pairs(books: Sequence[CharacterBook], folds: int = FOLDS) -> list[np.ndarray]:
    """Each book's pair probabilities from a pair model trained on the other folds (book i in
    fold i mod ``folds``)."""
    folds = max(2, min(folds, len(books)))
    held: list[np.ndarray] = [np.zeros(0)] * len(books)
    for fold in range(folds):
        train = [b for i, b in enumerate(books) if i % folds != fold]
        model = train_booster([b.rows for b in train], [b.labels for b in train], [b.weights for b in train], FEATURES)
        for i, b in enumerate(books):
            if i % folds == fold:
                held[i] = Decision(model, 0.0).probabilities(b.rows)
    return held


def person_data(books: Sequence[CharacterBook], held: Sequence[np.ndarray], threshold: float,
                floor: float) -> tuple[list[Found], list[np.ndarray], list[np.ndarray]]:
    """Each book's entries joined with ``held`` probabilities, their rows and "a person?" labels."""
    joined, rows, labels = [], [], []
    for b, p in zip(books, held):
        found = join_pairs(b.found, b.pairs, p, threshold, floor)
        joined.append(found)
        rows.append(entry_rows(found, b.detected))
        people = distinct_people(b.gold_characters)
        labels.append(np.array([int(g is not None) for g in entity_labels(found, people)], dtype=int))
    return joined, rows, labels


def train_character_model(books: Sequence[CharacterBook], threshold: float, floor: float,
                          person_threshold: float | None, meta: dict | None = None) -> CharacterModel:
    """Both learned steps trained on ``books`` (at least two), acting at the given thresholds
    (``person_threshold`` None: no "a person?" step)."""
    if len(books) < 2:
        raise ValueError("training the character steps needs at least two books")
    same = Decision(train_booster([b.rows for b in books], [b.labels for b in books], [b.weights for b in books],
                                  FEATURES), threshold, floor)
    person = None
    if person_threshold is not None:
        _, rows, labels = person_data(books, held_out_pairs(books), threshold, floor)
        person = Decision(train_booster(rows, labels, None, KEEP_FEATURES), person_threshold)
    return CharacterModel(same, person, dict(meta or {"trained_on": [b.name for b in books]}))
