"""Alias mentions, cues and vocatives read from hand-built text."""

from __future__ import annotations

import numpy as np
import pytest

from litlens.attribution.context import build_context
from litlens.attribution.features import (
    BASE_FEATURES,
    SECOND_FEATURES,
    base_rows,
    candidates,
    second_rows,
    style_similarity,
)
from litlens.attribution.scanner import AliasScanner
from litlens.model import Character, Quotation
from litlens.quotes.lexicon import Names
from litlens.text.paragraphs import find_paragraphs

CHARS = [
    Character("Elizabeth Bennet", ["Elizabeth Bennet", "Elizabeth", "Lizzy"], "female"),
    Character("Mr. Darcy", ["Mr. Darcy", "Darcy"], "male"),
    Character("Jane Bennet", ["Jane Bennet", "Jane", "Miss Bennet"], "female"),
    Character("Mrs. Bennet", ["Mrs. Bennet"], "female"),
]


def _quotes(text: str, pieces: list[str]) -> list[Quotation]:
    out = []
    for piece in pieces:
        start = text.index(piece)
        out.append(Quotation(spans=[(start, start + len(piece))]))
    return out


def test_alias_scanner_prefers_the_longest_alias_and_reads_possessives():
    scanner = AliasScanner(CHARS)
    text = "Mrs. Bennet's daughter Elizabeth Bennet met Mr.  Darcy; the rabbit ran."
    found = [(text[s:e], owners) for s, e, owners in scanner.scan(text)]
    assert found == [("Mrs. Bennet", (3,)), ("Elizabeth Bennet", (0,)), ("Mr.  Darcy", (1,))]


def test_alias_scanner_adds_unlisted_name_parts_but_not_shared_aliases():
    scanner = AliasScanner([Character("Bill Gorton", ["Bill Gorton"], "male")])
    assert scanner.match("Bill") == (0,)
    assert scanner.match("said Mr. Gorton") == (0,)


def test_alias_scanner_reads_the_name_after_a_title_listed_as_a_character():
    # PDNC lists "The Master" (a schoolmaster); "Master Charles Bates" is Charley Bates
    chars = [
        Character("The Master", ["The Master"], "male"),
        Character("Charley Bates", ["Charley Bates", "Master Bates", "Bates", "Charley"], "male"),
    ]
    scanner = AliasScanner(chars)
    assert scanner.match("cried Master Charles Bates") == (1,)
    assert scanner.match("said the Master") == (0,)


def test_alias_scanner_gives_a_husbands_first_name_to_him_not_to_his_wife():
    # "Mrs. John Dashwood" is John Dashwood's wife: "said John" is never her
    chars = [
        Character("Fanny", ["Fanny", "Mrs. John Dashwood"], "female"),
        Character("John Dashwood", ["John Dashwood", "Mr. Dashwood"], "male"),
        Character("John Middleton", ["John Middleton", "Sir John"], "male"),
        Character("Mrs. Jane Fairfax", ["Mrs. Jane Fairfax"], "female"),  # no husband listed: her own
    ]
    scanner = AliasScanner(chars)
    assert scanner.match("said John") == (1, 2)
    assert scanner.match("said Jane") == (3,)
    assert scanner.match("said Mrs. Dashwood") == (0,)


@pytest.mark.parametrize(
    ("subject", "named"),
    [
        ("Darcy, who did not like Elizabeth Bennet,", (1,)),  # the subject, not the longer name after it
        ("the clerk, winking upon Jane", (2,)),
        ("Mrs. Bennet", (3,)),
    ],
)
def test_alias_scanner_reads_a_cue_subject_as_its_first_name(subject, named):
    assert AliasScanner(CHARS).match(subject) == named


def test_alias_scanner_reads_a_surname_that_is_also_an_adjective():
    # "young", "old", "little", "poor" go before names ("old Sikes") but are surnames too
    chars = [Character("Mr. Young", ["Mr. Young", "Young"], "male"), Character("Mrs. Little", ["Mrs. Little"], "female")]
    scanner = AliasScanner(chars)
    assert scanner.match("Young") == (0,)  # "said Young"
    assert scanner.match("said Mr. Young") == (0,)
    assert scanner.match("Little") == (1,)  # her surname, listed only after a title


def test_alias_scanner_reads_a_surname_that_opens_with_a_lower_case_particle():
    scanner = AliasScanner([Character("Professor de Worms", ["Professor de Worms", "De Worms"], "male")])
    text = "De Worms sat down. \"No,\" said de Worms. Then the worms came."
    found = [text[s:e] for s, e, _ in scanner.scan(text)]
    assert found == ["De Worms", "de Worms"]
    # the particles are one list with the name rules' ("des" was missing here)
    scanner = AliasScanner([Character("Des Grieux", ["Des Grieux"], "male")])
    text = "\"Never,\" said des Grieux."
    assert [text[s:e] for s, e, _ in scanner.scan(text)] == ["des Grieux"]


def test_alias_scanner_reads_a_bare_surname_listed_only_after_a_title():
    chars = [
        Character("Mr. Turton", ["Mr. Turton", "The Collector"], "male"),
        Character("Mrs. Turton", ["Mrs. Turton"], "female"),
        Character("Miss Lavish", ["Miss Lavish"], "female"),
        Character("Mr. Mcbryde", ["Mr. Mcbryde"], "male"),
        Character("Dr. Allen", ["Dr. Allen"], "male"),
        Character("Sir Thomas Allen", ["Sir Thomas Allen"], "male"),
        Character("Mr. Hurst", ["Mr. Hurst"], "male"),
        Character("Dr. Hurst", ["Dr. Hurst"], "male"),
    ]
    scanner = AliasScanner(chars)
    text = "said Turton; said Mrs. Turton; Lavish laughed; said McBryde; said Allen; said Hurst"
    found = [(text[s:e], owners) for s, e, owners in scanner.scan(text)]
    # shared by a man and a woman, the surname names the man; two men keep it ambiguous,
    # and a surname a full name already gives ("Allen" of "Sir Thomas Allen") keeps its owner
    assert found == [("Turton", (0,)), ("Mrs. Turton", (1,)), ("Lavish", (2,)), ("McBryde", (3,)), ("Allen", (5,)),
                     ("Hurst", (6, 7))]


def test_build_context_reads_name_and_pronoun_cues_and_vocatives():
    text = (
        "\u201cI am quite sure,\u201d said Elizabeth, \u201cthat he is proud.\u201d\n\n"
        "\u201cLizzy, you are too severe,\u201d she replied.\n\n"
        "\u201cNot at all, Jane.\u201d\n"
    )
    quotes = _quotes(text, ["I am quite sure,", "that he is proud.", "Lizzy, you are too severe,", "Not at all, Jane."])
    merged = [Quotation(spans=quotes[0].spans + quotes[1].spans)] + quotes[2:]
    ctx = build_context(text, find_paragraphs(text), merged, CHARS)
    first, second, third = ctx.quotes
    assert first.cue is not None and first.cue_characters == (0,)
    assert second.cue is not None and second.cue.subject == "pronoun" and second.cue_pronoun == "female"
    assert second.vocatives == (0,)  # "Lizzy, ..." addresses Elizabeth: evidence she is NOT the speaker
    assert third.vocatives == (2,)
    assert third.cue is None



def test_build_context_reads_the_gender_of_a_noun_cue():
    text = (
        "Mr. Bennet put down his book and looked at the fire.\n\n"
        "\u201cNonsense, nonsense!\u201d cried his wife impatiently.\n\n"
        "\u201cI shall go,\u201d said the old gentleman.\n"
    )
    ctx = build_context(text, find_paragraphs(text), _quotes(text, ["Nonsense, nonsense!", "I shall go,"]), CHARS)
    wife, gentleman = ctx.quotes
    assert wife.cue is not None and wife.cue.subject == "noun"
    assert wife.cue_pronoun == "female"  # a wife is a woman, whoever "his" is
    assert gentleman.cue_pronoun == "male"


RANKED = [Character(n, [n], "male") for n in ("Count Mippipopolous", "Jake Barnes", "Colonel Brandon", "Colonel Forster")]


@pytest.mark.parametrize(
    "noun, named",
    [("the count", (0,)), ("the colonel", (2, 3)), ("the waiter", ())],  # two colonels: the cue stays ambiguous
)
def test_build_context_reads_a_rank_as_the_characters_who_hold_it(noun, named):
    text = f"\u201cThis is good wine,\u201d said {noun}.\n"
    (quote,) = build_context(text, find_paragraphs(text), _quotes(text, ["This is good wine,"]), RANKED).quotes
    assert quote.cue_noun_characters == named


def test_build_context_reads_a_noun_cue_that_goes_on_after_its_noun():
    chars = [
        Character("Mr. Emerson", ["Mr. Emerson"], "male"),
        Character("The Gentleman In The White Waistcoat", [], "male"),
        Character("The Mariner", ["The Mariner"], "male"),
    ]
    text = (
        "\u201cCome here,\u201d said the voice of old Mr. Emerson.\n\n"
        "\u201cNo,\u201d said the gentleman in the white waistcoat. \u201cNever.\u201d\n\n"
        "\u201cYes,\u201d said the mariner in the doorway.\n"
    )
    ctx = build_context(text, find_paragraphs(text), _quotes(text, ["Come here,", "No,", "Yes,"]), chars)
    voice, gentleman, mariner = ctx.quotes
    assert voice.cue_characters == (0,)  # "the voice of Mr. Emerson" names the speaker
    assert gentleman.cue_characters == () and gentleman.cue_noun_characters == (1,)
    assert mariner.cue_noun_characters == (2,)  # "in the doorway" names nobody; the noun still does
    # A character a noun cue describes is a candidate even when nobody names him nearby.
    assert all(2 in cands for cands in candidates(ctx)[2:])


def test_build_context_reads_cues_naming_surnames_with_particles_and_accented_names():
    # habits of novels unlike the dev set's (The Age of Innocence, translated novels): a cue
    # once stopped at "Mr." before "van der Luyden", and a name's accented letter cut "Zoë" short
    chars = [
        Character("Henry van der Luyden", ["Henry van der Luyden", "Mr. van der Luyden"], "male"),
        Character("Louisa van der Luyden", ["Louisa van der Luyden", "Mrs. van der Luyden"], "female"),
        Character("Zoë Hélène", ["Zoë", "Zoë Hélène"], "female"),
        Character("Catherine de Bourgh", ["Catherine de Bourgh", "Lady Catherine"], "female"),
    ]
    text = (
        "Mr. van der Luyden and Mrs. van der Luyden came in with Zoë and Lady Catherine.\n\n"
        "\u201cWe shall ask her to dine,\u201d said Mr. van der Luyden.\n\n"
        "Mrs. van der Luyden said, \u201cYes, Henry.\u201d\n\n"
        "\u201cMay I come too?\u201d asked Zo\u00eb.\n\n"
        "Then Lady Catherine de Bourgh said: \u201cNo.\u201d\n"
    )
    quotes = _quotes(text, ["We shall ask her to dine,", "Yes, Henry.", "May I come too?", "No."])
    ctx = build_context(text, find_paragraphs(text), quotes, chars)
    assert [q.cue_characters for q in ctx.quotes] == [(0,), (1,), (2,), (3,)]


def test_build_context_finds_the_cue_of_a_quotation_joined_across_paragraphs():
    # PDNC joins one speaker's turns over an interruption into one quotation with two spans.
    text = "\u201cI needed that,\u201d Jane said.\n\nThey walked up the street.\n\n\u201cHave another?\u201d\n"
    first, second = _quotes(text, ["I needed that,", "Have another?"])
    ctx = build_context(text, find_paragraphs(text), [Quotation(spans=first.spans + second.spans)], CHARS)
    (quote,) = ctx.quotes
    assert quote.cue is not None and quote.cue.text == "Jane said" and quote.cue_characters == (2,)


def test_build_context_reads_cues_in_the_paragraphs_around_a_quotation():
    # "Darcy went on." ends the paragraph before; "It was Jane who spoke." opens the one after.
    text = ("Elizabeth looked at Darcy and at Jane. Darcy went on.\n\n\u201cYou are right.\u201d\n\n"
            "\u201cWhat do you mean?\u201d\n\nIt was Jane who spoke. Elizabeth smiled.\n\n"
            "\u201cNothing at all,\u201d Darcy said.\n\n\u201cGood night.\u201d\n")
    quotes = _quotes(text, ["You are right.", "What do you mean?", "Nothing at all,", "Good night."])
    ctx = build_context(text, find_paragraphs(text), quotes, CHARS)
    assert [(q.cue.text if q.cue else None) for q in ctx.quotes] == ["Darcy went on", "Jane", "Darcy said", None]
    assert [q.cue_characters for q in ctx.quotes[:3]] == [(1,), (2,), (1,)]


def test_build_context_reads_his_wife_as_the_spouse_of_the_man_last_named():
    chars = [
        Character("Mr. Bennet", ["Mr. Bennet"], "male"),
        Character("Mrs. Bennet", ["Mrs. Bennet"], "female"),
        Character("Jane Bennet", ["Jane Bennet", "Jane"], "female"),
    ]
    text = (
        "\u201cMy dear Mr. Bennet,\u201d said his lady to him one day, \u201chave you heard?\u201d\n\n"
        "Mr. Bennet replied that he had not.\n\n"
        "\u201cDo you not want to know?\u201d cried his wife impatiently.\n\n"
        "\u201cYou want to tell me.\u201d\n\n"
        "\u201cHow can you be so tiresome!\u201d\n"
    )
    quotes = _quotes(text, ["My dear Mr. Bennet,", "have you heard?", "Do you not want to know?", "You want to tell me.",
                            "How can you be so tiresome!"])
    ctx = build_context(text, find_paragraphs(text), [Quotation(spans=quotes[0].spans + quotes[1].spans), *quotes[2:]], chars)
    lady, wife, _, _ = ctx.quotes
    assert lady.cue_noun_characters == (1,) and lady.cue_pronoun == "female"
    assert wife.cue_noun_characters == (1,)  # not Jane Bennet: no married title
    # the cue is a narration mention of Mrs. Bennet, who is never named: she is a candidate
    noun_mentions = [(text[m.start:m.end], m.characters) for m in ctx.mentions if not m.in_quote and m.characters == (1,)]
    assert noun_mentions == [("said his lady", (1,)), ("cried his wife impatiently", (1,))]
    assert all(1 in cands for cands in candidates(ctx))


def test_a_long_conversation_keeps_its_opening_mentions_and_every_named_speaker_as_candidates():
    extras = [Character(f"Guest {k}", [f"Guest {k}"], "male") for k in range(6)]
    chars = [*CHARS, *extras]  # six guests mentioned most: they are the book's prominent characters
    crowd = " ".join(f"Guest {k} came." for k in range(6))
    turns = [f"\u201cLine {k}.\u201d" for k in range(30)]
    turns[20] = "\u201cLine 20,\u201d said Jane."
    text = "\n\n".join([crowd, crowd, "Mr. Darcy came in.", *turns]) + "\n"
    ctx = build_context(text, find_paragraphs(text), _quotes(text, [f"Line {k}" for k in range(30)]), chars)
    darcy, jane = 1, 2
    cands = candidates(ctx)
    assert darcy in cands[-1]  # 27 paragraphs after his mention, 5 before the conversation
    assert jane in cands[0]  # her cue comes 20 turns later, in the same conversation
    assert 0 not in cands[-1] and 3 not in cands[0]  # Elizabeth and Mrs. Bennet are never mentioned


def test_a_cue_that_tells_the_sex_or_a_name_addressed_rules_candidates_out():
    from litlens.attribution.ranker import _rule_out

    text = "\u201cBut it is,\u201d returned she.\n\n\u201cWell,\u201d said Jane.\n"
    ctx = build_context(text, find_paragraphs(text), _quotes(text, ["But it is,", "Well,"]), CHARS)
    assert ctx.quotes[0].cue_pronoun == "female"
    # Mr. Darcy (a man) is out; Elizabeth and Jane share what is left.
    assert _rule_out(ctx, 0, {1: 0.6, 0: 0.3, 2: 0.1}) == pytest.approx({1: 0.0, 0: 0.75, 2: 0.25})
    assert _rule_out(ctx, 0, {1: 1.0}) == {1: 1.0}  # nobody else: the answer stands
    assert _rule_out(ctx, 1, {1: 0.6, 0: 0.4}) == {1: 0.6, 0: 0.4}  # a name cue tells no sex
    text = "\u201cMy dear Mr. Darcy, you are late.\u201d\n"
    ctx = build_context(text, find_paragraphs(text), _quotes(text, ["My dear Mr. Darcy, you are late."]), CHARS)
    assert ctx.quotes[0].vocatives == (1,)
    assert _rule_out(ctx, 0, {1: 0.5, 0: 0.5}) == {1: 0.0, 0: 1.0}  # Mr. Darcy is addressed


def test_leads_compare_each_candidate_with_the_best_other_one_of_its_quotation():
    from litlens.attribution.ranker import _model_input, leads

    rows = np.array([[1.0, 0.4, 3.0], [0.5, 0.9, 3.0], [0.2, 0.1, 1.0]])
    # first column: the leader is 0.5 ahead of the runner-up, who trails it by 0.5, and the
    # third trails the leader by 0.8; last column: two tied at the top lead by nothing.
    assert leads(rows) == pytest.approx(np.array([[0.5, -0.5, 0.0], [-0.5, 0.5, 0.0], [-0.8, -0.8, -2.0]]))
    assert leads(rows[:1]).tolist() == [[0.0, 0.0, 0.0]]  # a quotation's only candidate
    second = np.array([[0.7], [0.1], [0.0]])
    x = _model_input(rows, second)
    assert x.shape == (3, 8)
    assert x[:, :4].tolist() == np.hstack([rows, second]).tolist()
    assert x[:, 7] == pytest.approx([0.6, -0.6, -0.7])


def test_alias_scanner_skips_a_derived_common_word_at_the_start_of_a_sentence():
    # PDNC names some characters by a description; its first and last words are not names.
    inspector = Character("That Inspector In The Cab", ["That Inspector In The Cab"], "male")
    tilney = Character("General Tilney", ["General Tilney"], "male")
    text = (
        "That was all. That inspector said nothing, and that was that. The General smiled.\n\n"
        "\u201cThat is true,\u201d said the General. General Tilney bowed. General views are general.\n"
    )
    scanner = AliasScanner([inspector, tilney], Names(text, None))
    found = [(text[s:e], owners) for s, e, owners in scanner.scan(text)]
    # "that" is mostly lower case: no sentence-initial "That" is the inspector. "General" is
    # written as a name inside sentences as often as in lower case, so it stays a name.
    assert ("That", (0,)) not in found
    assert found.count(("General", (1,))) == 3
    assert ("General Tilney", (1,)) in found
    # Without the text every derived form counts, as before.
    assert ("That", (0,)) in [(text[s:e], o) for s, e, o in AliasScanner([inspector, tilney]).scan(text)]


def test_first_person_narrator_is_the_character_others_address_by_name():
    chars = [
        Character("Sherlock Holmes", ["Sherlock Holmes", "Holmes"], "male"),
        Character("Dr. Watson", ["Dr. Watson", "Watson"], "male"),
        Character("Thaddeus Sholto", ["Thaddeus Sholto", "Sholto"], "male"),
    ]
    paragraphs = []
    quotes = []
    for i in range(6):
        paragraphs.append("\u201cMy dear Watson, look at this,\u201d said Holmes. I looked, and I saw it.")
        paragraphs.append("\u201cSholto was here, and Sholto is gone, and Sholto knew it,\u201d I said.")
    text = "\n\n".join(paragraphs) + "\n"
    pos = 0
    for piece in ["My dear Watson, look at this,", "Sholto was here, and Sholto is gone, and Sholto knew it,"] * 6:
        start = text.index(piece, pos)
        quotes.append(Quotation(spans=[(start, start + len(piece))]))
        pos = start + len(piece)
    ctx = build_context(text, find_paragraphs(text), quotes, chars)
    assert ctx.first_person > 0.5
    # Sholto is named inside quotations more often, but only Watson is addressed.
    assert ctx.narrator == 1



def _conversation_rows(text: str, pieces: list[str]):
    """Candidates, first-pass rows and column index for quotations ``pieces`` of ``text``."""
    ctx = build_context(text, find_paragraphs(text), _quotes(text, pieces), CHARS)
    cands = candidates(ctx)
    return ctx, cands, base_rows(ctx, cands), {name: k for k, name in enumerate(BASE_FEATURES)}


def test_conversation_turns_carry_a_named_speaker_to_every_other_turn():
    text = (
        "\u201cWhere is Jane?\u201d said Darcy.\n\n"
        "\u201cIn the garden.\u201d\n\n"
        "\u201cAlone?\u201d\n\n"
        "Elizabeth looked away.\n\n"
        "\u201cWith her sister.\u201d\n\n"
        "\u201cThen I shall wait.\u201d\n\n"
        "Nothing more was said that day.\n\n"
        "It rained all week.\n\n"
        "\u201cA new day,\u201d said Elizabeth.\n"
    )
    pieces = ["Where is Jane?", "In the garden.", "Alone?", "With her sister.", "Then I shall wait.", "A new day,"]
    ctx, cands, rows, col = _conversation_rows(text, pieces)
    conv = ctx.conversations
    assert ctx.conversations is conv  # built once per book
    # one paragraph of narration keeps the conversation going; two end it
    assert [u for u, _ in conv.others(0)] == [1, 2, 3, 4]
    assert conv.others(5) == []
    darcy = cands[4].index(1)  # "Then I shall wait." is four turns after Darcy's named turn
    assert rows[4][darcy, col["conv_same_cue"]] == 1 and rows[4][darcy, col["conv_same_near"]] == pytest.approx(0.25)
    darcy = cands[3].index(1)  # "With her sister." is three turns after it
    assert rows[3][darcy, col["conv_other_cue"]] == 1 and rows[3][darcy, col["conv_same_cue"]] == 0
    assert rows[3][darcy, col["conv_turns"]] == 5
    # a later pass weighs the previous pass's answers of the conversation's other turns by parity
    first = [{c: (1.0 if c == 1 else 0.0) for c in cs} if i == 0 else {c: 1.0 / len(cs) for c in cs} for i, cs in enumerate(cands)]
    second = second_rows(ctx, cands, first)
    scol = {name: k for k, name in enumerate(SECOND_FEATURES)}
    darcy = cands[2].index(1)
    assert second[2][darcy, scol["p1_conv_same"]] > second[2][darcy, scol["p1_conv_other"]]
    darcy = cands[1].index(1)
    assert second[1][darcy, scol["p1_conv_balance"]] < 0


def test_conversation_turns_that_address_or_describe_a_character_count_by_parity():
    text = (
        "\u201cGood morning, Jane.\u201d\n\n"
        "\u201cGood morning.\u201d\n\n"
        "Elizabeth smiled. \u201cAnd to you.\u201d\n"
    )
    _, cands, rows, col = _conversation_rows(text, ["Good morning, Jane.", "Good morning.", "And to you."])
    jane, lizzy = cands[1].index(2), cands[1].index(0)
    # the turn before "Good morning." addresses Jane; the turn after is Elizabeth's, by narration
    assert rows[1][jane, col["conv_other_voc"]] == 1 and rows[1][jane, col["conv_same_voc"]] == 0
    assert rows[1][lizzy, col["conv_other_narr"]] == 1
    lizzy = cands[0].index(0)
    assert rows[0][lizzy, col["conv_same_narr"]] == 0.5


def test_conversation_turns_that_tell_the_speakers_sex_count_by_parity():
    text = (
        "Elizabeth and Mr. Darcy walked on.\n\n"
        "\u201cIs it far?\u201d she asked.\n\n"
        "\u201cNot very.\u201d\n\n"
        "\u201cThen let us walk.\u201d\n"
    )
    _, cands, rows, col = _conversation_rows(text, ["Is it far?", "Not very.", "Then let us walk."])
    lizzy, darcy = cands[2].index(0), cands[2].index(1)
    # two turns after "she asked", a turn of the same parity was a woman's (1 / distance);
    # one turn after, the turn of the other parity was
    assert rows[2][lizzy, col["conv_same_sex"]] == 0.5 and rows[2][darcy, col["conv_same_sex"]] == -0.5
    assert rows[1][lizzy, col["conv_other_sex"]] == 1 and rows[1][darcy, col["conv_other_sex"]] == -1



def test_the_nearest_clause_subject_before_a_quotation_is_marked():
    text = (
        "Elizabeth and Jane sat with Mr. Darcy.\n\n"
        "Jane listened; and all her compliments to Elizabeth were forgotten: she exclaimed, "
        "\u201cDid he?\u201d\n\n"
        "Mr. Darcy looked at Elizabeth.\n\n"
        "\u201cHe did.\u201d\n"
    )
    _, cands, rows, col = _conversation_rows(text, ["Did he?", "He did."])
    lizzy, darcy, jane = 0, 1, 2
    # "Jane listened" opens a clause; "to Elizabeth" is an object
    assert rows[0][cands[0].index(jane), col["subject_before_sex"]] == 1
    assert rows[0][cands[0].index(lizzy), col["subject_before_sex"]] == 0
    assert rows[0][cands[0].index(jane), col["subject_before"]] == 1
    # a quotation opening its paragraph reads the narration paragraph before it
    assert rows[1][cands[1].index(darcy), col["subject_before"]] == 1
    assert rows[1][cands[1].index(darcy), col["subject_before_sex"]] == 0  # no pronoun cue


def test_a_later_pass_reads_who_has_been_talking_in_the_book_chapter_and_conversation():
    text = (
        "Elizabeth, Jane, Mrs. Bennet and Mr. Darcy sat down.\n\n"
        "\u201cA fine day.\u201d\n\n"
        "\u201cVery fine.\u201d\n\n"
        "\u201cToo hot.\u201d\n\n"
        "\u201cNonsense.\u201d\n\n"
        "\u201cIs it?\u201d\n"
    )
    pieces = ["A fine day.", "Very fine.", "Too hot.", "Nonsense.", "Is it?"]
    ctx, cands, _, _ = _conversation_rows(text, pieces)
    lizzy, darcy, jane, mother = 0, 1, 2, 3
    # by the previous pass: Jane, Elizabeth, Mrs. Bennet, Jane, and an open question
    said = [jane, lizzy, mother, jane, None]
    answers = [{c: (1.0 if c == s else 0.0) for c in cs} if s is not None else {c: 1.0 / len(cs) for c in cs}
               for s, cs in zip(said, cands)]
    second = second_rows(ctx, cands, answers)
    col = {name: k for k, name in enumerate(SECOND_FEATURES)}

    def value(i: int, who: int, name: str) -> float:
        return float(second[i][cands[i].index(who), col[name]])

    # the open question: Jane spoke one turn back and three back, Mrs. Bennet two back, Darcy never
    assert value(4, jane, "p1_last_turns") == 1 and value(4, mother, "p1_last_turns") == 2
    assert value(4, darcy, "p1_last_turns") == 30 and value(4, darcy, "p1_next_turns") == 30
    assert value(4, jane, "p1_conv_share") == pytest.approx(0.5) and value(4, darcy, "p1_conv_share") == 0
    # the first turn: Elizabeth speaks one turn later, Jane three turns later (the nearest)
    assert value(0, lizzy, "p1_next_turns") == 1 and value(0, jane, "p1_next_turns") == 3
    # a quotation's own answer is left out: for each of Jane's turns the other one counts,
    # and the open question sees her two turns of its four others
    assert value(0, jane, "p1_chapter_share") == pytest.approx(value(3, jane, "p1_chapter_share"))
    assert value(4, jane, "p1_chapter_share") == pytest.approx(0.5) and value(4, mother, "p1_chapter_share") == pytest.approx(0.25)
    assert value(4, darcy, "p1_chapter_share") == 0
    assert value(4, jane, "p1_book_share") > value(4, darcy, "p1_book_share")
    # saying as much, Jane is named once and Mrs. Bennet once: the same talk for her name
    assert value(4, jane, "p1_talk_ratio") == pytest.approx(2.0 / 2.0)

def test_a_later_pass_reads_whose_words_a_quotation_resembles():
    text = (
        "\u201cA capital dinner, upon my word,\u201d said Darcy.\n\n"
        "\u201cWhat a lovely bonnet,\u201d said Elizabeth.\n\n"
        "The evening went on.\n\n"
        "It rained all week.\n\n"
        "\u201cSo lovely, the bonnet,\u201d said Elizabeth.\n\n"
        "The week went on.\n\n"
        "The sun came out.\n\n"
        "\u201cCapital, upon my word.\u201d\n"
    )
    pieces = ["A capital dinner, upon my word,", "What a lovely bonnet,", "So lovely, the bonnet,", "Capital, upon my word."]
    ctx = build_context(text, find_paragraphs(text), _quotes(text, pieces), CHARS)
    cands = candidates(ctx)
    lizzy, darcy = 0, 1
    answers = [{darcy: 0.9, lizzy: 0.1}, {lizzy: 1.0}, {lizzy: 1.0}, {c: 1.0 / len(cands[3]) for c in cands[3]}]
    style = style_similarity(ctx, cands, answers)
    # the last quotation shares "capital", "upon my word" with Darcy's first, nothing with
    # Elizabeth's (whose words hold the first at 0.1)
    sim = {c: style[3][r] for r, c in enumerate(cands[3])}
    assert sim[darcy][0] > 0.5 and sim[lizzy][0] < 0.1
    assert sim[darcy][1] == pytest.approx(sim[darcy][0] - max(v[0] for c, v in sim.items() if c != darcy))
    # a quotation is left out of its own speaker's words: the second one resembles the third
    # (Elizabeth's), and the first is Darcy's words only through the other quotation
    sim1 = {c: style[1][r] for r, c in enumerate(cands[1])}
    assert sim1[lizzy][0] > 0.3 and sim1[lizzy][1] > 0
    sim0 = {c: style[0][r] for r, c in enumerate(cands[0])}
    assert sim0[darcy][0] > 0.3  # through "Capital, upon my word." at 1 / len(candidates)
    # the feature reaches the later pass's rows
    second = second_rows(ctx, cands, answers)
    scol = {name: k for k, name in enumerate(SECOND_FEATURES)}
    assert second[3][cands[3].index(darcy), scol["p1_style_sim"]] == pytest.approx(sim[darcy][0])


@pytest.mark.parametrize(
    "cue, named",
    [
        ("said the mariner, rising", (0,)),  # the alias is the cue's opening words
        ("said the worthy matron", (1,)),  # a listed description with the same head noun
        ("said Mademoiselle", (2,)),  # a title alone, borne by one character
        ("said the inspector, frowning", (3,)),  # a rank, lower case, with words after it
        ("said the stranger", ()),  # nobody listed is described so
    ],
)
def test_a_noun_cue_names_the_character_whose_alias_or_description_holds_it(cue, named):
    chars = [
        Character("The Mariner", ["The Mariner"], "male"),
        Character("Mrs. Corney", ["Mrs. Corney", "The Matron"], "female"),
        Character("Mademoiselle Reisz", ["Mademoiselle Reisz"], "female"),
        Character("Inspector Jones", ["Inspector Jones"], "male"),
        Character("The Old Man", ["The Old Man"], "male"),
    ]
    text = f"\u201cThis will not do,\u201d {cue}.\n"
    (quote,) = build_context(text, find_paragraphs(text), _quotes(text, ["This will not do,"]), chars).quotes
    assert quote.cue_noun_characters == named


def test_a_kinship_cue_names_the_relative_of_the_character_last_named():
    chars = [
        Character("Elizabeth Bennet", ["Elizabeth Bennet", "Elizabeth"], "female"),
        Character("Mr. Bennet", ["Mr. Bennet"], "male"),
        Character("Kitty Bennet", ["Kitty Bennet", "Kitty"], "female"),
        Character("Mr. Darcy", ["Mr. Darcy", "Darcy"], "male"),
    ]
    text = "Elizabeth came in, and Darcy bowed.\n\n\u201cYou are late,\u201d said her father.\n"
    (quote,) = build_context(text, find_paragraphs(text), _quotes(text, ["You are late,"]), chars).quotes
    assert quote.cue_noun_characters == (1,)  # a father has a parent's title; Kitty is a woman


def test_a_married_womans_father_bears_her_maiden_name_and_her_son_her_married_one():
    chars = [
        Character("Louisa", ["Louisa", "Louisa Gradgrind", "Mrs. Bounderby"], "female"),
        Character("Mr. Gradgrind", ["Mr. Gradgrind"], "male"),
        Character("Mr. Bounderby", ["Mr. Bounderby"], "male"),
        Character("Josiah Bounderby", ["Josiah Bounderby"], "male"),
    ]
    for cue, named in (("said her father", (1,)), ("said her son", (2, 3))):
        text = f"Louisa came in.\n\n\u201cYou are late,\u201d {cue}.\n"
        (quote,) = build_context(text, find_paragraphs(text), _quotes(text, ["You are late,"]), chars).quotes
        assert quote.cue_noun_characters == named, cue


def test_a_bare_name_entry_is_linked_to_the_fuller_characters_it_is_part_of():
    chars = [
        Character("Small", ["Small"], "unknown"),
        Character("Jonathan Small", ["Jonathan Small", "The Wooden-Legged Man"], "male"),
        Character("Hamidullah", ["Hamidullah"], "male"),
        Character("Hamidullah Begum", ["Hamidullah Begum"], "female"),
        Character("Tom Bertram", ["Tom Bertram"], "male"),
        Character("Maria Bertram", ["Maria Bertram"], "female"),
    ]
    scanner = AliasScanner(chars)
    assert scanner.match("Small") == (0, 1)  # "said Small": the ranker chooses between them
    assert scanner.match("Hamidullah") == (2,)  # a man and a woman stay apart
    assert scanner.match("Mr. Bertram") == (4,)  # the title tells the sex
    text = "said Small"
    (quote_owners,) = [owners for _, _, owners in scanner.scan(text)]
    assert quote_owners == (0, 1)


def test_a_minor_mr_or_miss_entry_is_linked_to_the_fuller_characters_of_its_surname():
    def minor(name, gender):
        return Character(name, [name], gender, category="minor")

    chars = [
        minor("Mr. Crawford", "male"),  # 0: a placeholder for the form the text calls Henry by
        Character("Henry Crawford", ["Henry Crawford", "Henry"], "male", category="major"),
        Character("Mary Crawford", ["Mary Crawford", "Miss Crawford"], "female", category="major"),
        minor("Miss Bertram", "female"),  # 3
        Character("Maria Bertram", ["Maria Bertram", "Maria"], "female", category="intermediate"),
        Character("Julia Bertram", ["Julia Bertram", "Julia"], "female", category="intermediate"),
        Character("Lady Bertram", ["Lady Bertram"], "female", category="intermediate"),  # titled: not a Miss
        minor("Mrs. Vane", "female"),  # 7: a "Mrs." of the surname is a mother, not her daughter
        Character("Sibyl Vane", ["Sibyl Vane", "Sibyl"], "female", category="intermediate"),
        Character("Mr. Emerson", ["Mr. Emerson", "Old Mr. Emerson"], "male", category="intermediate"),  # 9
        Character("George Emerson", ["George Emerson", "George"], "male", category="intermediate"),
    ]
    scanner = AliasScanner(chars)
    assert scanner.match("Mr. Crawford") == (0, 1)  # never Mary: the title tells the sex
    assert scanner.match("Miss Bertram") == (3, 4, 5)
    assert scanner.match("Mrs. Vane") == (7,)
    assert scanner.match("Mr. Emerson") == (9,)  # a listed character of its own, not a placeholder
    # a list without categories (discovered characters) is left as it is
    plain = [Character(c.name, c.aliases, c.gender) for c in chars]
    assert AliasScanner(plain).match("Mr. Crawford") == (0,)


def test_a_description_the_list_lacks_becomes_a_minor_character():
    from litlens.attribution.context import described_characters

    text = (
        "\u201cTickets, please,\u201d said the porter, stepping in.\n\n"
        "\u201cHere,\u201d said Elizabeth.\n\n"
        "\u201cThank you, miss,\u201d answered the old porter.\n\n"
        "\u201cWho is there?\u201d said the man.\n\n"
        "\u201cMe,\u201d said the man.\n\n"
        "\u201cDo come,\u201d said the answer.\n"
    )
    pieces = ["Tickets, please,", "Here,", "Thank you, miss,", "Who is there?", "Me,", "Do come,"]
    ctx = build_context(text, find_paragraphs(text), _quotes(text, pieces), CHARS)
    (porter,) = described_characters(ctx)  # "the man" is too general, "the answer" is no person
    assert porter.name == "The Porter" and set(porter.aliases) == {"The Porter", "The Old Porter"}
    chars = CHARS + [porter]
    ctx = build_context(text, find_paragraphs(text), _quotes(text, pieces), chars)
    assert ctx.quotes[0].cue_noun_characters == (len(CHARS),) == ctx.quotes[2].cue_noun_characters


@pytest.mark.parametrize("full_mentions, owners", [(1, (0,)), (2, (0, 1))])
def test_a_bare_name_is_linked_only_to_a_fuller_name_the_book_uses_more_than_once(full_mentions, owners):
    chars = [Character("Lucy", ["Lucy"], "female"), Character("Miss Lucy Honeychurch Drive", ["Miss Lucy Honeychurch Drive"], "female")]
    text = "Lucy came in. " * 5 + "Miss Lucy Honeychurch Drive was there. " * full_mentions
    scanner = AliasScanner(chars, Names(text, None))
    assert scanner.match("Lucy") == owners


def test_a_bare_name_used_far_more_than_the_fuller_one_stays_its_own():
    chars = [Character("Lucy", ["Lucy"], "female"), Character("Miss Lucy Honeychurch Drive", ["Miss Lucy Honeychurch Drive", "Miss Lucy"], "female")]
    text = "Lucy came in. " * 50 + "Miss Lucy was there. " * 3
    assert AliasScanner(chars, Names(text, None)).match("Lucy") == (0,)


@pytest.mark.parametrize(
    "quoted, signer",
    [
        # a signature after a blank line, in capitals, under "your well-wisher and friend"
        ("I remain, dear sir, with respectful compliments,\n     your well-wisher and friend,\n\n     WILLIAM COLLINS.",
         "William Collins"),
        ("Bath seems full, and everything as usual. Yours sincerely, Edmund.", "Edmund"),  # a closing only letters use
        ("Your affectionate sister,\n\nJane", "Jane"),
        ("I am yours, Harriet.", None),  # speech to someone: "yours" alone and the name on the same line
        ("I am afraid the avenue stands a bad chance,\nFanny.", None),  # a hard-wrapped line, no closing
        ("How glad I am we have met with Mrs.\nThorpe!", None),
        ("Yours, etc.", None),
    ],
)
def test_a_letter_is_signed_by_the_name_under_its_closing(quoted, signer):
    from litlens.attribution.letters import letter_signer

    assert letter_signer(quoted, lambda name: (name,)) == ((signer,) if signer else ())


LETTER_CHARS = [
    Character("Mr. Collins", ["Mr. Collins", "William Collins", "Collins"], "male"),
    Character("Mr. Bennet", ["Mr. Bennet"], "male"),
    Character("Mrs. Bennet", ["Mrs. Bennet"], "female"),
]
LETTER = (
    "Mr. Bennet took the letter from his pocket and read it to his wife.\n\n"
    "\u201cDear Sir,\u2014I have been fully sensible of the disagreement between my late father and you, "
    "and I hope to visit Longbourn on Monday. I remain, dear sir, with respectful compliments to your lady "
    "and daughters, your well-wisher and friend,\n\n     WILLIAM COLLINS.\u201d\n\n"
    "\u201cHe seems a most conscientious young man,\u201d said Mrs. Bennet.\n"
)


def test_a_signed_letter_is_given_to_its_writer_whoever_reads_it_out():
    from litlens.attribution.cpu import BookInput, CpuAttributor
    from litlens.services.attribution import default_model_path

    quotes = _quotes(LETTER, [LETTER[LETTER.index("Dear Sir"):LETTER.index("COLLINS.") + 8], "He seems a most conscientious young man,"])
    paragraphs = find_paragraphs(LETTER)
    ctx = build_context(LETTER, paragraphs, quotes, LETTER_CHARS)
    assert ctx.quotes[0].signed == (0,)
    assert 0 not in ctx.quotes[0].vocatives  # the name under a letter is no one addressed
    attributor = CpuAttributor.from_file(default_model_path())
    book = BookInput(LETTER, paragraphs, [("q1", quotes[0]), ("q2", quotes[1])],
                     [(str(i), c) for i, c in enumerate(LETTER_CHARS)], name="letter")
    letter, answer = attributor.attribute(book)
    assert letter.speaker == "0"  # Mr. Collins wrote it; Mr. Bennet only reads it out
    assert answer.speaker == "2"


@pytest.mark.parametrize(
    "narration, quoted, writer",
    [
        ("Elizabeth took up the letter from Jane, and read as follows:\n\n", "My dearest Lizzy, all is well.", "Jane"),
        ("She broke the seal of Mr. Collins's long letter.\n\n", "Dear Sir, I write to tell you of my news.",
         "Mr. Collins"),
        ("Two days later came a note; Jane had written:\n\n", "We are settled at last.", "Jane"),
        # no letter, or nothing set out: speech goes on as speech
        ("Jane came in with Mr. Collins, and said nothing.\n\n", "My dear Lizzy, sit down.", None),
        ("She had a letter from Jane that morning.\n\n", "What news?", None),
        ("Jane took out Mr. Collins's letter and said:\n\n", "My dear Lizzy, he is coming.", None),
    ],
)
def test_a_letter_the_narration_sets_out_is_its_writers(narration, quoted, writer):
    from litlens.attribution.letters import letter_writer

    names = {"Jane": ("Jane",), "Mr. Collins": ("Mr. Collins",)}
    assert letter_writer(narration, quoted, lambda name: names.get(name, ())) == ((writer,) if writer else ())


INTRODUCED = (
    "Mr. Bennet came in with the post, and Elizabeth took up the letter from Jane, which ran thus:\n\n"
    "\u201cMy dearest Lizzy, I am at Gracechurch Street, and in good health. Mr. Bennet will tell you "
    "the rest.\u201d\n\n"
    "\u201cShe is too good,\u201d said Mrs. Bennet.\n"
)


def test_a_letter_introduced_by_the_narration_is_given_to_its_writer():
    from litlens.attribution.cpu import BookInput, CpuAttributor
    from litlens.services.attribution import default_model_path

    chars = LETTER_CHARS + [Character("Jane Bennet", ["Jane Bennet", "Jane"], "female"),
                            Character("Elizabeth Bennet", ["Elizabeth Bennet", "Elizabeth", "Lizzy"], "female")]
    quotes = _quotes(INTRODUCED, [INTRODUCED[INTRODUCED.index("My dearest"):INTRODUCED.index("the rest.") + 9],
                                  "She is too good,"])
    paragraphs = find_paragraphs(INTRODUCED)
    ctx = build_context(INTRODUCED, paragraphs, quotes, chars)
    assert ctx.quotes[0].signed == (3,)
    assert ctx.quotes[1].signed == ()  # an answer after it is speech again
    attributor = CpuAttributor.from_file(default_model_path())
    book = BookInput(INTRODUCED, paragraphs, [("q1", quotes[0]), ("q2", quotes[1])],
                     [(str(i), c) for i, c in enumerate(chars)], name="introduced")
    letter, answer = attributor.attribute(book)
    assert letter.speaker == "3"  # Jane wrote it; Elizabeth only reads it
    assert answer.speaker == "2"
