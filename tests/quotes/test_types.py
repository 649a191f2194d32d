"""Quotation types (explicit / anaphoric / implicit) and referring expressions."""

from __future__ import annotations

import pytest

from litlens.model import EntityMention
from litlens.quotes.detect import detect_quotations
from litlens.quotes.lexicon import SPEECH_VERBS
from litlens.quotes.types import classify_referring_expression
from litlens.text.paragraphs import find_paragraphs

# A little context so that names are seen capitalised mid-sentence, as in a real book.
BOOK = (
    "Elizabeth and Lydia went out with Mrs. Bennet, and Mr. Darcy saw Elizabeth and Pooh. "
    "The Gryphon and the Dodger met Mr. Collins and Winterbourne. Then the man and the girl came. "
    "Alice saw the Mock Turtle; the Mock Turtle wept.\n\n"
)


def typed(paragraph: str, persons: list[EntityMention] | None = None) -> tuple[str, str | None]:
    text = BOOK + paragraph
    quotations = detect_quotations(text, find_paragraphs(text), None, persons)
    assert len(quotations) == 1, [text[q.start : q.end] for q in quotations]
    q = quotations[0]
    if q.cue_span is not None:
        assert text[q.cue_span[0] : q.cue_span[1]] == q.referring_expression
    return q.type, q.referring_expression


@pytest.mark.parametrize(
    "paragraph, expected",
    [
        ('"I am glad," said Elizabeth.', ("explicit", "said Elizabeth")),
        ('"I am glad," Mrs. Bennet said.', ("explicit", "Mrs. Bennet said")),
        ('"Oh!" cried Lydia, "how delightful!"', ("explicit", "cried Lydia")),
        ('"Indeed," Mr. Darcy coolly observed.', ("explicit", "Mr. Darcy coolly observed")),
        ('"Not yet," replied Mr. Collins, smiling.', ("explicit", "replied Mr. Collins")),
        ('"Well," said the Gryphon.', ("explicit", "said the Gryphon")),
        ('"Hours ago," replied the Dodger.', ("explicit", "replied the Dodger")),
        # "mock" is a speech verb, but this book writes Mock capitalised: part of a name
        ('"Of course it was," said the Mock Turtle.', ("explicit", "said the Mock Turtle")),
        ('"Will she go?" inquired poor Pooh.', ("explicit", "inquired poor Pooh")),
        ('"That is all," pronounced Winterbourne quietly.', ("explicit", "pronounced Winterbourne")),
        # tag verbs the dev novels hardly use, read by their past tense ("a pipe" is no verb)
        ('"She is going out," Lydia proclaimed.', ("explicit", "Lydia proclaimed")),
        ('"Hallo, Rabbit," piped Pooh.', ("explicit", "piped Pooh")),
        ('"Not likely," grunted Winterbourne.', ("explicit", "grunted Winterbourne")),
        ('Elizabeth coloured and said, "I cannot."', ("explicit", "Elizabeth coloured and said")),
        # what a possessor owns can be the speech itself
        ('"Go on," said Lydia\'s voice.', ("explicit", "said Lydia's voice")),
        ("Mrs. Bennet's only comment was, \"Nonsense.\"", ("explicit", "Mrs. Bennet's only comment")),
    ],
)
def test_types_explicit_cues_name_the_speaker(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    "paragraph, expected",
    [
        ('"We shall ask her," said Mr. van der Luyden.', ("explicit", "said Mr. van der Luyden")),
        ('Mr. van der Luyden said, "We shall ask her."', ("explicit", "Mr. van der Luyden said")),
        ('Then Catherine de Bourgh said, "No."', ("explicit", "Catherine de Bourgh said")),
    ],
)
def test_types_a_surname_with_lower_case_particles_is_read_whole(paragraph, expected):
    # the particles between a title or first name and the surname belong to the name
    book = "Newland saw Mr. van der Luyden there, and Elizabeth saw Catherine de Bourgh.\n\n"
    text = book + paragraph
    (q,) = detect_quotations(text, find_paragraphs(text), None, None)
    assert (q.type, q.referring_expression) == expected


@pytest.mark.parametrize(
    "paragraph, expected",
    [
        ('"I am glad," she cried.', ("anaphoric", "she cried")),
        ('"My dear," said his lady to him.', ("anaphoric", "said his lady")),
        ('"Not I," I said.', ("anaphoric", "I said")),
        ('"Go to bed," said her mother.', ("anaphoric", "said her mother")),
        # a possessor is not the speaker: Mr. Collins's wife speaks here
        ('"Is that the man?" asked Mr. Collins\'s good lady.', ("anaphoric", "asked Mr. Collins's good lady")),
        ('"But it is," returned she, "for I know it."', ("anaphoric", "returned she")),
        ('"Who is there?" asked the man.', ("anaphoric", "asked the man")),
        ('"Nonsense," was the answer.', ("anaphoric", "was the answer")),
        ('He withdrew his hand and coldly said, "No."', ("anaphoric", "He withdrew his hand and coldly said")),
        ('"Well," she went on, "we shall see."', ("anaphoric", "she went")),
        (
            'He stepped forward and said, in a voice which only she could hear, "Not yet."',
            ("anaphoric", "He stepped forward and said"),
        ),
    ],
)
def test_types_anaphoric_cues_use_pronouns_or_common_nouns(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    "paragraph",
    [
        '"I am glad."',
        'Elizabeth looked at him. "I am glad."',
        '"I am glad." She turned to the window.',
        '"Perhaps," and she smiled.',
    ],
)
def test_types_without_cue_are_implicit(paragraph):
    assert typed(paragraph) == ("implicit", None)


def test_types_sentence_initial_pronoun_is_not_a_name():
    assert typed('"Yes." He said it slowly.') == ("anaphoric", "He said")


def test_types_demonym_after_the_is_a_common_noun():
    text = "The Jew was there. The Jew came.\n\n" + '"Ah!" cried the Jew.'
    (q,) = detect_quotations(text, find_paragraphs(text))
    assert q.type == "anaphoric"


def test_types_possessor_inside_the_cue_clause_is_not_its_subject():
    paragraph = 'Mr. Darcy, struck by Elizabeth\'s looks, took her hand and said, "You are ill."'
    assert typed(paragraph) == ("explicit", "Mr. Darcy, struck by Elizabeth's looks, took her hand and said")


@pytest.mark.parametrize(
    ("paragraph", "expression"),
    [
        ('Mr. Collins approaching Lydia said, "Pray sit."', "Mr. Collins approaching Lydia said"),
        ('Mr. Darcy drawing near Elizabeth said, "You are ill."', "Mr. Darcy drawing near Elizabeth said"),
        ('Elizabeth, who did not like Mr. Collins, replied, "No."', "Elizabeth, who did not like Mr. Collins, replied"),
        ('Lydia looked at Mr. Darcy, who said, "Indeed."', "Mr. Darcy, who said"),
        ('The silence was broken by Elizabeth, who gravely said, "Well."', "Elizabeth, who gravely said"),
        ('Before leaving Mr. Collins said, "Adieu."', "Mr. Collins said"),
    ],
)
def test_types_a_name_that_is_an_object_in_the_cue_clause_is_not_its_subject(paragraph, expression):
    assert typed(paragraph) == ("explicit", expression)


def test_types_previous_paragraph_ending_with_colon_gives_the_cue():
    assert typed('Then Elizabeth said:\n\n"I will go."')[0] == "explicit"


def test_types_person_mentions_confirm_sentence_initial_names():
    paragraph = '"Yes." Zanzibarina said it.'
    text = BOOK + paragraph
    start = text.index("Zanzibarina")
    persons = [EntityMention(start, start + len("Zanzibarina"), "Zanzibarina")]
    assert typed(paragraph, persons)[0] == "explicit"
    assert typed(paragraph, None)[0] == "implicit"  # unknown capitalised word at a sentence start


def test_types_a_name_that_is_also_a_word_is_read_after_speech_verbs():
    # "may" is a verb far more often than May is a name; capitalised right after a speech
    # verb again and again, inside sentences, it is a speaker's name
    book = ("May Welland came in. \"Yes,\" cried May. You may go, and you may stay.\n\n"
            "\"No,\" said May. I may. We may. It may be. They may.\n\n")
    text = book + '"Come here," added May.'
    quotations = detect_quotations(text, find_paragraphs(text), None, None)
    assert (quotations[-1].type, quotations[-1].referring_expression) == ("explicit", "added May")
    lone = "It may be so; you may go; we may.\n\n" + '"Come here," added May.'
    assert detect_quotations(lone, find_paragraphs(lone), None, None)[-1].type != "explicit"  # once: no name


def test_types_speech_verb_lexicon_is_broad():
    for verb in ("said", "cried", "replied", "asked", "answered", "returned", "exclaimed", "continued",
                 "added", "observed", "remarked", "whispered", "muttered", "shouted", "began", "went",
                 "thought", "rejoined", "interposed", "stammered", "remonstrated", "expostulated",
                 "besought", "acquiesced", "conceded", "informed", "thundered"):
        assert verb in SPEECH_VERBS


def test_types_less_common_speech_verbs_make_cues():
    assert typed('"You must not," remonstrated the old man.', None)[0] == "anaphoric"
    assert typed('"It is so," she acquiesced.', None)[0] == "anaphoric"


@pytest.mark.parametrize(
    "expression, expected",
    [
        (None, "implicit"),
        ("", "implicit"),
        ("said Bear", "explicit"),
        ("he said", "anaphoric"),
        ("said the old man", "anaphoric"),
        ("Marilla intercepted the look and said", "explicit"),
    ],
)
def test_classify_referring_expression(expression, expected):
    assert classify_referring_expression(expression) == expected


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        # a sentence of its own that says only who takes up the speech
        ('There was a short silence. Mr. Collins began again. "You seem well."', ("explicit", "Mr. Collins began")),
        ('It was late. Elizabeth went on. "I will go."', ("explicit", "Elizabeth went on")),
        ('Nobody answered. Lydia joined in. "So will I."', ("explicit", "Lydia joined in")),
        ('It was late. She went on quietly. "I will go."', ("anaphoric", "She went on")),
        ('Everyone was hushed. Lydia it was who spoke up. "Me!"', ("explicit", "Lydia it was who spoke")),
        # the sentence's subject, past a semicolon, when the clause after it has none
        ('Mrs. Bennet declined the dish; and then, rising up, said, "Go."', ("explicit", "Mrs. Bennet declined the dish; and then, rising up, said")),
    ],
)
def test_types_cue_sentences_before_a_quotation(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    "paragraph",
    [
        'It was late. The rain began. "I will go."',  # no person
        'It was late. Elizabeth went on to the window. "I will go."',  # a walk, not a speech
        'It was late. They went on. "I will go."',  # not one speaker
        'The dish went round; and then, rising up, said, "Go."',  # no one the semicolon leaves
    ],
)
def test_types_sentences_that_are_no_cue(paragraph):
    assert typed(paragraph)[0] == "implicit"


def test_types_a_sentence_right_after_a_quotation_is_its_cue_not_the_next_ones():
    text = BOOK + '"I am tired," Lydia said.\n\n"Then go to bed."'
    quotations = detect_quotations(text, find_paragraphs(text), None, None)
    assert [q.type for q in quotations] == ["explicit", "implicit"]


def test_types_cleft_after_a_quotation():
    assert typed('"Who is there?" It was Elizabeth who spoke.') == ("explicit", "Elizabeth")


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        # an epithet between the verb and a title: the speaker's description, nothing else
        ('"What can you expect?" said dour Mr. Collins.', ("explicit", "said dour Mr. Collins")),
        ('"Why?" sighed pleasure-loving Mrs. Bennet.', ("explicit", "sighed pleasure-loving Mrs. Bennet")),
        # the speech owned by a name, whatever the noun
        ('"Four o\'clock!" was Mr. Darcy\'s quick amendment; and so it ended.', ("explicit", "was Mr. Darcy's quick amendment")),
        ('"Strong objections," were Mr. Collins\'s words, and nobody argued.', ("explicit", "were Mr. Collins's words")),
        ('"I shall go home," was Elizabeth\'s thought.', ("explicit", "was Elizabeth's thought")),
        # the progressive of a speech verb
        ('"Try the jam," Lydia was saying.', ("explicit", "Lydia was saying")),
        # a participle after the comma is no part of the subject, a name in apposition is
        ('"Well," said the Gryphon, fixing Mr. Darcy with a stare.', ("explicit", "said the Gryphon")),
    ],
)
def test_types_less_usual_cue_orders_name_the_speaker(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    "paragraph",
    [
        '"Come here," Lydia was told.',  # a passive: Lydia is spoken to
        '"Go," said to Mr. Darcy, was all.',  # a preposition is no epithet
        '"Go," was Elizabeth\'s thought of the matter when all was said and done.',  # a longer clause
    ],
)
def test_types_less_usual_orders_that_name_no_speaker(paragraph):
    assert typed(paragraph) == ("implicit", None)


def test_types_a_participle_after_a_noun_subject_ends_it():
    # the name is the participle's object: the cue stays the man's, anaphoric
    assert typed('"Well," said the man, fixing Mr. Darcy with a stare.') == ("anaphoric", "said the man")
    # a name right after the comma stands in apposition and is the speaker
    assert typed('"Well," said the stranger, Mr. Darcy.') == ("explicit", "said the stranger, Mr. Darcy")


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        # the relative clause holds the verb, past a participle between commas
        ('Lydia was joined by Mr. Collins, who, coming to her with a gay look, said, "Go."',
         ("explicit", "Mr. Collins, who, coming to her with a gay look, said")),
        # after "by", a possessive's own speech: the agent speaks
        ('Lydia was stopped by Mr. Darcy\'s saying, "Go."', ("explicit", "Mr. Darcy's saying")),
        # "by" with a plain name is still a place beside him
        ('Lydia stood by Mr. Darcy and said, "Go."', ("explicit", "Lydia stood by Mr. Darcy and said")),
    ],
)
def test_types_an_agent_after_by_speaks_when_the_clause_says_so(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        # the one heard speaks, not the one who hears
        ('Elizabeth heard her saying, "Go."', ("anaphoric", "her saying")),
        ('Mr. Darcy distinctly heard him add, "Go."', ("anaphoric", "him add")),
        ('Elizabeth turned away, but not too soon to hear her friend exclaim, "Go."', ("anaphoric", "her friend exclaim")),
        ('Elizabeth could hear his voice saying, "Go."', ("anaphoric", "his voice saying")),
        # hearing oneself, and the passive "was heard to say", leave the subject speaking
        ('Mr. Darcy heard himself remark, "Go."', ("explicit", "Mr. Darcy heard himself remark")),
        ('Mr. Collins was heard to say, "Go."', ("explicit", "Mr. Collins was heard to say")),
        # what is heard is no speaker when it is not right before the verb
        ('Mr. Darcy heard her in silence, and then said, "Go."',
         ("explicit", "Mr. Darcy heard her in silence, and then said")),
        # a clause after ", and" with a noun subject of its own
        ('Mr. Collins had just joined them, and his wife was exclaiming, "Go."', ("anaphoric", "his wife was exclaiming")),
        ('Mr. Collins sat down, and the old man repeated, "Go."', ("anaphoric", "the old man repeated")),
        # ... but not a voice, a time, or an object joined without a comma
        ('Lydia opened her door, and her voice said, "Go."', ("explicit", "Lydia opened her door, and her voice said")),
        ('Lydia paused, and the next moment said, "Go."', ("explicit", "Lydia paused, and the next moment said")),
        # a name right after a verb is its object when a subject comes first
        ('She had met Mr. Darcy by chance at the post office, said, "Go."',
         ("anaphoric", "She had met Mr. Darcy by chance at the post office, said")),
        ('She was determined to see Lydia alone, and therefore said, "Go."',
         ("anaphoric", "She was determined to see Lydia alone, and therefore said")),
        # ... not the end of a clause that opens the sentence
        ('When she had finished Lydia said, "Go."', ("explicit", "Lydia said")),
    ],
)
def test_types_the_one_heard_or_a_new_subject_speaks(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    ("paragraph", "expected"),
    [
        ('"Go on," Lydia used to say.', ("explicit", "Lydia used to say")),
        ('"Go on," Lydia kept saying.', ("explicit", "Lydia kept saying")),
        ('"Go on," Lydia managed to say.', ("explicit", "Lydia managed to say")),
        ('"Go on," at last said Lydia.', ("explicit", "at last said Lydia")),
        ('"Go on," Mr. Darcy\'s voice came.', ("explicit", "Mr. Darcy's voice came")),
        ('"Go on," Lydia shot back.', ("explicit", "Lydia shot back")),
        ('"Go on," Lydia struck in.', ("explicit", "Lydia struck in")),
    ],
)
def test_types_catenative_and_phrasal_cues_after_a_quotation(paragraph, expected):
    assert typed(paragraph) == expected


@pytest.mark.parametrize(
    "paragraph",
    [
        '"Go on," the words she would like to have said.',  # no speaker before "to"
        'Lydia found Mr. Collins just returned, and was immediately greeted with, "Go."',  # a passive: spoken to
    ],
)
def test_types_cues_that_name_no_speaker_after_all(paragraph):
    assert typed(paragraph) == ("implicit", None)
