"""Lexical query weighting: distance from [MASK] on each side, and names weighted down."""

from __future__ import annotations

import pytest

from litlens.retrieval.query import NAMES_MIN_TERMS, query_names, term_weights
from litlens.retrieval.retriever import Retriever

FILLER = " ".join(["stone"] * 9)
# The rest of a critic's paragraph, far after the mask: long queries are where names are weighted.
ARGUMENT = " The essay goes on: " + " ".join(f"argument{i}" for i in range(NAMES_MIN_TERMS)) + "."


def test_term_weights_words_after_the_mask_decay_with_tau_right():
    query = f"lantern {FILLER} [MASK] {FILLER} harbour"
    same = term_weights(query, 10.0, tau_right=None)
    faster = term_weights(query, 10.0, tau_right=2.0)
    assert same["lantern"] == pytest.approx(same["harbour"])
    assert faster["lantern"] == pytest.approx(same["lantern"])
    assert faster["harbour"] < 0.01 < faster["lantern"]


def test_query_names_are_words_capitalised_inside_a_sentence_and_never_lower_case():
    query = ("Clyde yearns for Hortense Briggs; then Clyde's mother asks Mr. Griffiths for money. "
             "Later the Marsh farm and the marsh road. I think Virginia is right. Esta left.")
    # "Later" and "Esta" only open sentences, "Marsh" is also written lower case, "Mr" is a title
    assert query_names(query) == {"clyde", "hortense", "briggs", "griffiths", "virginia"}


@pytest.mark.parametrize(
    ("query", "weighs_the_name"),
    [
        ("Hortense schools Clyde in desire: [MASK] and money follows." + ARGUMENT, 0.0),
        ("Hortense schools Clyde in desire: [MASK] and money follows.", 1.0),  # a short claim keeps them
        ("the coat Hortense wants from Clyde." + ARGUMENT, 1.0),  # so does a description without a mask
    ],
)
def test_term_weights_drop_names_only_in_a_long_query_around_a_mask(query, weighs_the_name):
    assert term_weights(query, None, name_weight=0.0)["clyde"] == weighs_the_name


def test_term_weights_keep_names_when_they_are_all_the_query_says():
    query = "Then Hortense and Clyde: [MASK] " + " ".join(["Hortense Clyde"] * NAMES_MIN_TERMS)
    assert term_weights(query, None, name_weight=0.0)["clyde"] > 0


HORTENSE_TEXTS = [
    "Hortense Briggs looked at Clyde, and Clyde looked back at Hortense Briggs.",
    "She would like a coat, she said, if only she had the money for it.",
    "The hotel was busy all evening with travellers from the station.",
]
HORTENSE_QUERY = (
    "Hortense Briggs teaches Clyde what desire costs: [MASK] So Clyde learns that Hortense wants a coat and money."
    + ARGUMENT
)


def test_retriever_prefers_the_described_passage_to_one_that_only_shares_names():
    default = Retriever(HORTENSE_TEXTS, method="bm25").search(HORTENSE_QUERY, 3)
    with_names = Retriever(HORTENSE_TEXTS, method="bm25", name_weight=1.0).search(HORTENSE_QUERY, 3)
    assert default[0].candidate == 1
    assert with_names[0].candidate == 0  # names at full weight pull the wrong passage up


def test_retriever_ranks_words_near_the_mask_above_the_same_words_far_away():
    texts = ["The carriage waited by the gate in the rain.", "The orchard bloomed beside the church tower."]
    near = f"orchard church {FILLER} {FILLER} {FILLER} carriage gate rain [MASK] she said"
    far = f"carriage gate rain {FILLER} {FILLER} {FILLER} orchard church [MASK] she said"
    assert Retriever(texts, method="bm25").search(near, 1)[0].candidate == 0
    assert Retriever(texts, method="bm25").search(far, 1)[0].candidate == 1
