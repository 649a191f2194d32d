"""Query handling: [MASK] weighting, the query's own quotations, truncation, empty queries."""

from __future__ import annotations

import warnings

import pytest

from litlens.retrieval.query import EmptyQueryError, MaskOnlyQueryError, check_query, matching_words, quoted_mask, term_weights


def test_words_near_the_mask_weigh_more():
    query = "Bingley far far far far far far far far far far far far far far far far [MASK] Darcy"
    w = term_weights(query, tau=10, name_weight=1.0)  # Darcy is a name: weighed like any word here
    assert w["darci"] > 0.9 and w["bingley"] < 0.25


def test_without_a_mask_every_word_weighs_one():
    assert term_weights("Darcy proposes") == {"darci": 1.0, "propos": 1.0}


def test_candidates_quoted_in_the_query_are_found():
    query = 'Earlier he says "she is tolerable but not handsome enough" and later: [MASK]'
    texts = ["She is tolerable; but not handsome enough to tempt me.", "In vain have I struggled."]
    assert quoted_mask(query, texts).tolist() == [True, False]


@pytest.mark.parametrize("query", ["", "   ", "!!"])
def test_empty_query_is_refused(query):
    with pytest.raises(EmptyQueryError, match="query is empty"):
        check_query(query)


def test_a_query_of_only_the_mask_is_refused_with_an_example():
    with pytest.raises(MaskOnlyQueryError, match="only \\[MASK\\].*overhears Darcy"):
        check_query(" [MASK] ")


def test_matching_words_are_highlighted():
    text = "Mr. Darcy proposed to her."
    spans = matching_words("Darcy's proposal [MASK]", text)
    assert [text[s:e] for s, e in spans] == ["Darcy", "proposed"]


def test_long_query_is_cut_around_the_mask_with_a_warning():
    from litlens.retrieval.dense import QueryTruncatedWarning, packaged_model_path, truncate_around_mask
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(packaged_model_path()))
    query = "early " * 300 + "[MASK] close words here " + "late " * 300
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cut = truncate_around_mask(query, tok, 60)
    assert any(issubclass(w.category, QueryTruncatedWarning) for w in caught)
    assert "[MASK] close words here" in cut
    assert len(tok(cut, add_special_tokens=False)["input_ids"]) <= 60
    assert cut.startswith("early") and cut.rstrip().endswith("late")
