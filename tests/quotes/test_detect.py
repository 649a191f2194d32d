"""Quotation detection on small hand-built texts: marks, styles, runs, interruptions."""

from __future__ import annotations

import pytest

from litlens.model import Chapter, Paragraph
from litlens.quotes.detect import detect_quotations
from litlens.quotes.marks import find_segments, quote_style, restore_lost_marks, restore_lost_single_opens
from litlens.text.paragraphs import find_paragraphs


def detect(text: str, **kwargs):
    return detect_quotations(text, find_paragraphs(text), **kwargs)


def spans_text(text: str, quotations) -> list[list[str]]:
    return [[text[s:e] for s, e in q.spans] for q in quotations]


# --------------------------------------------------------------------------- marks and styles


@pytest.mark.parametrize(
    "text",
    [
        '"I am glad," said Jane.',
        "“I am glad,” said Jane.",
        "'I am glad,' said Jane.",
        "‘I am glad,’ said Jane.",
    ],
)
def test_detect_quote_marks_of_every_style(text):
    quotations = detect(text)
    assert spans_text(text, quotations) == [["I am glad,"]]


def test_detect_spans_exclude_marks_and_outer_whitespace():
    text = 'He said nothing.\n\n" Not a word. "\n\nShe left.'
    (q,) = detect(text)
    assert text[q.start : q.end] == "Not a word."
    assert text[q.start - 2] == '"'


def test_detect_keeps_a_lost_dash_before_the_closing_mark():
    # An ASCII conversion turned "But——" into "But" and six spaces: the spaces are the
    # broken-off speech's dash, and PDNC's span keeps them; a single space or a line
    # break before the mark is still trimmed.
    text = 'He hesitated.\n\n"But      "\n\n"Here he is."\n\n"Not a word. "\n\n"Gone.\n   "\n\nShe left.'
    assert spans_text(text, detect(text)) == [["But      "], ["Here he is."], ["Not a word."], ["Gone."]]


def test_quote_style_counts_dialogue_paragraphs():
    british = "'Hello,' said Tom.\n\n'Good day,' said Ann.\n\nHe said \"no\" twice."
    american = '"Hello," said Tom.\n\n"Good day," said Ann.\n\nIt\'s the Bennets\' house.'
    assert quote_style(british, find_paragraphs(british)) == "single"
    assert quote_style(american, find_paragraphs(american)) == "double"


def test_detect_british_style_keeps_apostrophes_inside():
    text = (
        "'Well,' said he, 'I think it's past ten o'clock. Don't you?'\n\n"
        "'It's a fine day,' said Mrs Bennet. 'The Bennets' house is goin' to be full.'\n\n"
        "She looked at him. 'Nothin' doin',' she replied.\n\n"
        "'I'm goin' home,' said Tom. 'You comin'?'\n\n"
        "He went to the Smiths' and then to the Joneses' farm."
    )
    assert spans_text(text, detect(text)) == [
        ["Well,", "I think it's past ten o'clock. Don't you?"],
        ["It's a fine day,", "The Bennets' house is goin' to be full."],
        ["Nothin' doin',"],
        ["I'm goin' home,", "You comin'?"],
    ]


def test_detect_british_style_mark_left_between_spaces_by_a_lost_dash_closes_the_speech():
    # A plain-text conversion dropped the dash of "I should like--'": the mark now stands
    # alone between spaces, and it still closes the broken-off speech.
    text = "'I should like ' faltered the child.\n\n'Hey-day!' cried Mrs. Mann, 'what now?'"
    assert spans_text(text, detect(text)) == [["I should like"], ["Hey-day!", "what now?"]]


def test_detect_british_style_elisions_do_not_open_quotations():
    text = "'Twas a cold night and we kept 'em in.\n\n'Come in,' said Ann. 'It's cold.'\n\n'Come in,' said Ann."
    assert spans_text(text, detect(text)) == [["Come in,", "It's cold."], ["Come in,"]]


def test_detect_british_scare_quote_then_speech_in_one_paragraph():
    text = "Nobody thought they would 'do' till they had gone. Then he said: 'A view? Oh, a view!'\n\n'Yes.'"
    # 'do' is closed by its apostrophe-like mark once the next quotation opens, then
    # dropped as a scare quote.
    assert spans_text(text, detect(text)) == [["A view? Oh, a view!"], ["Yes."]]


# --------------------------------------------------------------------------- runs and recovery


def test_detect_multi_paragraph_speech_gives_one_quotation_per_paragraph_like_pdnc():
    text = (
        '"The story is long," said the old man. "It began in the war,\n\n'
        '"and went on for years after it,\n\n'
        '"and it ends here."\n\nNobody spoke.'
    )
    quotations = detect(text)
    assert spans_text(text, quotations) == [
        ["The story is long,", "It began in the war,"],
        ["and went on for years after it,"],
        ["and it ends here."],
    ]


def test_detect_multi_paragraph_speech_joined_on_request():
    text = '"It began in the war,\n\n"and went on for years,\n\n"and it ends here."\n\nNobody spoke.'
    (q,) = detect(text, join_paragraphs=True)
    assert [text[s:e] for s, e in q.spans] == ["It began in the war,", "and went on for years,", "and it ends here."]


def test_detect_unbalanced_quote_is_closed_at_paragraph_end():
    text = '"I never finished this sentence, said Tom.\n\nThe next paragraph is narration.'
    assert spans_text(text, detect(text)) == [["I never finished this sentence, said Tom."]]


def test_detect_missing_closing_curly_mark_recovers_at_next_opening():
    text = "“I am done. “Who is there?” asked Tom."
    assert spans_text(text, detect(text)) == [["I am done."], ["Who is there?"]]


def test_detect_curly_mark_left_between_spaces_by_a_lost_dash_closes_the_speech():
    # "tell you--” became "tell you “" when the dash was dropped and a converter guessed the
    # mark's direction from the space before it; it is read as the straight text is.
    curly = "“It isn’t pleasant to have a woman tell you “ he went on: “Now if I were like Arobin?” He sat down."
    straight = curly.replace("“", '"').replace("”", '"')
    expected = [["It isn’t pleasant to have a woman tell you", "Now if I were like Arobin?"]]
    assert spans_text(curly, detect(curly)) == spans_text(straight, detect(straight)) == expected


def test_detect_curly_marks_printed_the_wrong_way_round():
    # smart-quote converters turn a closing mark after a dash into an opening one, and
    # sometimes print an opening mark as a closing one
    text = "“I don’t much care where--“ said Alice.\n\n”Then it doesn’t matter,” said the Cat."
    assert spans_text(text, detect(text)) == [["I don’t much care where--"], ["Then it doesn’t matter,"]]
    (first, second) = detect(text)
    assert first.referring_expression == "said Alice"
    assert second.referring_expression == "said the Cat"

# --------------------------------------------------------------------------- interrupted speech


def test_detect_interrupted_speech_is_one_quotation_with_two_spans():
    text = '"Well," said he, "I think it will rain."'
    (q,) = detect(text)
    assert [text[s:e] for s, e in q.spans] == ["Well,", "I think it will rain."]
    assert q.referring_expression == "said he"
    assert text[q.cue_span[0] : q.cue_span[1]] == "said he"


def test_detect_interruption_with_full_stop_after_cue_is_still_one_quotation():
    text = '"My dear," said Mrs. Bennet. "Have you heard?"'
    assert spans_text(text, detect(text)) == [["My dear,", "Have you heard?"]]


def test_detect_full_stop_before_a_lowercase_cue_does_not_end_the_quotation():
    text = '"I cannot breathe." said the Dormouse. "Do move up."'
    assert spans_text(text, detect(text)) == [["I cannot breathe.", "Do move up."]]
    text = '"Yes." I said. "I like it."'
    assert spans_text(text, detect(text)) == [["Yes.", "I like it."]]


def test_detect_narration_sentence_between_quotes_separates_them():
    text = '"I am tired." He sat down by the fire and closed his eyes. "Wake me at six."'
    assert spans_text(text, detect(text)) == [["I am tired."], ["Wake me at six."]]


def test_detect_speech_carries_on_past_a_cue_and_a_narration_sentence():
    text = '"Jake," Mike said. He was almost crying. "You know I am right."'
    assert spans_text(text, detect(text)) == [["Jake,", "You know I am right."]]
    # The first speech ends with a full stop: its cue closes it.
    text = '"I am going." Mike said it quietly. He stood up. "Wait for me."'
    assert len(detect(text)) == 2
    # Another speaker is cued in the narration, or the second speech has its own cue.
    text = '"Jake," Mike said. He turned and Bill answered, "You know I am right."'
    assert len(detect(text)) == 2
    text = '"Jake," Mike said. He was almost crying. "You know," Bill said.'
    assert len(detect(text)) == 2


def test_detect_speech_goes_on_after_a_short_beat_of_action():
    # A cued speech, a gesture, and more speech with no cue of its own: one quotation.
    text = '"Come on, Jake," he said, "have a drink." We walked over to the bar. "What is the matter?"'
    assert spans_text(text, detect(text)) == [["Come on, Jake,", "have a drink.", "What is the matter?"]]


_LONG_BEAT = " ".join(["They walked on and on."] * 6)


@pytest.mark.parametrize(
    "text, quotations",
    [
        ('"It is not the time," said the Major. His voice broke into a roar. "Call in the troops."', 1),
        # The second speech has its own cue, or the first has none: two quotations.
        ('"It is not the time," said the Major. His voice broke. "Call in the troops," he cried.', 2),
        ('"It is not the time." He stood up. "Call in the troops."', 2),
        # A last clause with a speech verb hands over to new speech, even with no subject.
        ('Mrs. Norris said, "It is settled." Then leaving her seat, added in a whisper, "Come here."', 2),
        ('Mrs. Norris said, "It is settled." Then leaving her seat, she came to him. "Come here."', 1),
        # A long stretch of narration is more than a beat.
        (f'The Major said, "It is not the time." {_LONG_BEAT} "Call in the troops."', 2),
        # No cue anywhere: a comma-ended aside separates two quotations, as PDNC does; a cue
        # anywhere in the quotation holds its pieces together.
        ('"But that gentleman," looking at Darcy, "seemed to think the country was nothing."', 2),
        ('"But that gentleman," looking at Darcy, "seemed to think the country was nothing," said she.', 1),
        ('"But that gentleman," said she, looking at Darcy, "seemed to think the country was nothing."', 1),
    ],
)
def test_detect_beats_and_asides_join_pieces_around_a_cue(text, quotations):
    assert len(detect(text)) == quotations


def test_detect_uncued_speech_splits_at_a_comma_aside():
    text = '"But that gentleman," looking at Darcy, "seemed to think the country was nothing."'
    assert spans_text(text, detect(text)) == [["But that gentleman,"], ["seemed to think the country was nothing."]]


def test_detect_parenthesised_aside_keeps_one_speech_together():
    text = '"You feel as a mother, Mrs. Mann." (He stirred the gin.) "I drink your health."'
    assert spans_text(text, detect(text)) == [["You feel as a mother, Mrs. Mann.", "I drink your health."]]


def test_detect_full_stop_without_cue_separates_quotes():
    text = '"No." He turned away. "Never."'
    assert len(detect(text)) == 2


def test_detect_second_speaker_in_the_narration_starts_a_new_quotation():
    text = '"Hush!" said the King; and the Rabbit called out, "Silence in the court!"'
    assert spans_text(text, detect(text)) == [["Hush!"], ["Silence in the court!"]]


def test_detect_sentence_resumed_after_a_cue_with_a_pronoun_clause_is_one_quotation():
    text = '"Well," said the doctor, and then he added, "it is a strange case."'
    assert spans_text(text, detect(text)) == [["Well,", "it is a strange case."]]
    # A new speaker named in the narration still starts a new quotation.
    text = '"Well," said the doctor, and the nurse added, "it is a strange case."'
    assert spans_text(text, detect(text)) == [["Well,"], ["it is a strange case."]]


def test_detect_stage_direction_in_parentheses_is_left_out_of_the_speech():
    text = '"I am quite sure, (looking towards the window,) that it will rain before noon," said Jane.'
    assert spans_text(text, detect(text)) == [["I am quite sure,", "that it will rain before noon,"]]


def test_detect_speakers_own_parenthesis_stays_in_the_speech():
    text = '"I went there (and I wish you had come too) on Tuesday," said Jane.'
    assert spans_text(text, detect(text)) == [["I went there (and I wish you had come too) on Tuesday,"]]


def test_detect_next_speaker_introduced_after_and_starts_a_new_quotation():
    text = 'Tom said, "If you see what I mean, Ann," and Ann said, "It is just what I think, Tom."'
    assert spans_text(text, detect(text)) == [["If you see what I mean, Ann,"], ["It is just what I think, Tom."]]
    text = '"I should have thought so, but," and her eyes brightened as she spoke, "it was a happy summer."'
    assert spans_text(text, detect(text)) == [["I should have thought so, but,", "it was a happy summer."]]


def test_detect_each_cue_tags_its_own_quotation():
    text = '"Oh!" said Pooh. "So it is," he said. "Well, let\'s go in."'
    assert spans_text(text, detect(text)) == [["Oh!"], ["So it is,", "Well, let's go in."]]
    # The last piece of a paragraph tagged by a cue right after it: the first cue is the first piece's.
    text = '"Hoax," said a Voice. "It is a hoax," said Mr. Marvel.\n\n"Of course," the Dodo replied. "What else?" he went on.'
    assert spans_text(text, detect(text)) == [["Hoax,"], ["It is a hoax,"], ["Of course,"], ["What else?"]]
    # A sentence of narration after the second piece is not its cue.
    text = '"Welcome!" she cried. "Welcome to Monteriano!" He greeted her.'
    assert spans_text(text, detect(text)) == [["Welcome!", "Welcome to Monteriano!"]]


# --------------------------------------------------------------------------- lost nested marks

# A book converted to plain ASCII with its curly apostrophes and single marks turned into
# spaces ("I don t know").
_ASCII_LOSSES = "".join(f"I don t know what he wants, number {i}.\n\n" for i in range(12))


def changed_after(prefix: str, text: str, restored: str) -> list[int]:
    """Offsets (counted from the end of ``prefix``) where a repair changed ``text``; it never
    changes the length."""
    assert len(restored) == len(text)
    return [i - len(prefix) for i, (a, b) in enumerate(zip(text, restored)) if a != b]


def test_restore_lost_marks_puts_nested_marks_back_without_moving_offsets():
    para = '" Hum!  said he.  A fifth share! That is not very tempting.'
    text = _ASCII_LOSSES + para
    restored = restore_lost_marks(text, find_paragraphs(text))
    assert restored[len(_ASCII_LOSSES) :] == '"‘Hum!’ said he. ‘A fifth share! That is not very tempting.'
    # Everything else is untouched.
    assert changed_after(_ASCII_LOSSES, text, restored) == [1, 6, 17]


def test_restore_lost_marks_reopens_after_a_cue_before_a_small_letter():
    para = '"He came in, saying,\n I know you.  and then,  Well,  said she;  well, that is odd. "'
    text = _ASCII_LOSSES + para
    restored = restore_lost_marks(text, find_paragraphs(text))[len(_ASCII_LOSSES) :]
    assert restored == '"He came in, saying,\n‘I know you.’ and then, ‘Well,’ said she; ‘well, that is odd. "'
    # Narration between two nested quotations that is not a cue opens nothing before a small letter.
    para = '"He came in, saying,\n I know you.  and then,  once more, he left."'
    text = _ASCII_LOSSES + para
    assert changed_after(_ASCII_LOSSES, text, restore_lost_marks(text, find_paragraphs(text))) == [21, 33]


def test_restore_lost_marks_sees_the_loss_in_possessives_when_a_book_has_few_contractions():
    # Austen writes "do not": the lost apostrophes show in "Mrs. Allen s" instead.
    losses = "".join(f"It was Mrs. Allen s wish, number {i}.\n\n" for i in range(12))
    text = losses + '" Hum!  said he.  A fifth share!'
    assert restore_lost_marks(text, find_paragraphs(text))[len(losses) :] == '"‘Hum!’ said he. ‘A fifth share!'
    printed = text.replace("Allen s", "Allen's")
    assert restore_lost_marks(printed, find_paragraphs(printed)) == printed


def test_restore_lost_marks_leaves_books_with_real_apostrophes_alone():
    text = "I don't know.\n\n" * 12 + _ASCII_LOSSES + '" Hum!  said he.  A fifth share!'
    assert restore_lost_marks(text, find_paragraphs(text)) == text


def test_detect_retold_speech_with_lost_marks_is_cut_out_of_the_narrators_quotation():
    text = _ASCII_LOSSES + '"Well, the major came.\n\n" Hum!  said he.  A fifth share! That is not very tempting.'
    quotations = detect(text)
    assert spans_text(text, quotations)[-1] == ["said he."]
    # The same words in a book with its apostrophes are one quotation, as printed.
    plain = text.replace("don t", "don't")
    assert spans_text(plain, detect(plain))[-1] == [" Hum!  said he.  A fifth share! That is not very tempting.".strip()]


# A book converted to ASCII byte by byte: every em dash became three spaces (and so did the
# opening curly single marks), while closing single marks survived as apostrophes.
_BYTEWISE_LOSSES = "".join(f"It was late   too late, number {i}.\n\n" for i in range(24))


def test_restore_lost_single_opens_puts_the_opening_marks_back_without_moving_offsets():
    para = "\"I say to him,    Come! come to me only.' He refuses. I say:\n   Do not come.' Chiefs' Conference!\""
    text = _BYTEWISE_LOSSES + para
    restored = restore_lost_single_opens(text, find_paragraphs(text))
    changed = changed_after(_BYTEWISE_LOSSES, text, restored)
    assert [para[i + 1 : i + 5] for i in changed] == ["Come", "Do n"]
    assert all(restored[len(_BYTEWISE_LOSSES) + i] == "‘" for i in changed)
    # A plural possessive has no lost mark before it; the lost dashes stay spaces.
    assert "Chiefs' Conference" in restored and "late   too" in restored


def test_restore_lost_single_opens_leaves_books_with_dashes_alone():
    text = "It was late--too late.\n\n" + _BYTEWISE_LOSSES + "\"I say to him,    Come! come to me only.' He refuses.\""
    assert restore_lost_single_opens(text, find_paragraphs(text)) == text


def test_detect_retold_speech_with_lost_opening_marks_is_cut_out():
    text = _BYTEWISE_LOSSES + "\"I heard her quite plainly.    You have lied to me,' she said. I went away.\""
    assert spans_text(text, detect(text)) == [["I heard her quite plainly."], ["she said. I went away."]]
    # Printed with its marks, the same words give the same quotations.
    printed = text.replace("    You", "   ‘You")
    assert spans_text(printed, detect(printed)) == spans_text(text, detect(text))


# --------------------------------------------------------------------------- nested quotes


def test_detect_nested_quotes_stay_inside_the_outer_quotation():
    text = "\"He told me 'never again' and left,\" said Jane.\n\n“She said ‘no’ to him,” said Tom."
    assert spans_text(text, detect(text)) == [["He told me 'never again' and left,"], ["She said ‘no’ to him,"]]


def test_detect_retold_speech_running_into_the_next_paragraph_is_left_out_too():
    text = "\"I met him at the gate. 'Good morning,' said he, 'a fine day for a walk.\n\n\"'It is,' said I. So we walked on.\""
    assert spans_text(text, detect(text)) == [["I met him at the gate."], ["said he,"], ["said I. So we walked on."]]


def test_detect_nested_retold_speech_is_left_out_of_the_spans():
    text = "\"I met him at the gate. 'Good morning,' said he, 'a fine day.' Then he walked on,\" said Ann."
    # Each stretch of the speaker's own words around the speech she retells is a quotation.
    assert spans_text(text, detect(text)) == [["I met him at the gate."], ["said he,"], ["Then he walked on,"]]


def test_detect_nested_quote_without_its_own_cue_is_not_cut():
    text = "\"You could just say 'not today' and go home,\" said Ann."
    assert spans_text(text, detect(text)) == [["You could just say 'not today' and go home,"]]


def test_detect_nested_double_quotes_in_british_style():
    text = "'He said \"never\" to me,' cried Lydia.\n\n'Yes,' said Kitty."
    assert spans_text(text, detect(text)) == [['He said "never" to me,'], ["Yes,"]]


# --------------------------------------------------------------------------- not speech


@pytest.mark.parametrize(
    "text",
    [
        'He stopped at the foot of the "Coach and Horses" steps.',
        'She called him a "sneak"; and went out.',
        'The sign said nothing but "To Let" in red.',
        'When Gilbert recited "Bingen on the Rhine" Anne picked up a book.',
        'They were to write a composition on "A Winter\'s Walk in the Woods," and it was hard.',
        # the line wraps right before the mark
        'We ran into town, and Poirot directed the car to the\n"Analytical Chemist." He hopped down.',
        'He was turning over the pages of a volume of Schumann\'s\n"Forest Scenes." Then he looked up.',
    ],
)
def test_detect_titles_and_scare_quotes_are_not_speech(text):
    assert detect(text) == []


# The text of some PDNC novels lost its dashes: an aside sits between runs of spaces.
def test_detect_speech_resumed_after_an_aside_is_kept_but_a_word_quoted_in_the_aside_is_not():
    text = (
        '"A tinge of it is not a bad thing. It leavens the"   she looked at him   '
        '"stolid stupidity of the ordinary Englishman."\n\n'
        '"I have a little idea"   Poirot\'s "little ideas" were a byword   "and would like to ask."'
    )
    found = [t[0] for t in spans_text(text, detect(text))]
    assert "stolid stupidity of the ordinary Englishman." in found
    assert "little ideas" not in found


def test_detect_title_case_speech_with_final_punctuation_is_still_speech():
    text = 'The boys were yelling at the tops of their voices, "Hurrah for Blythe, Medalist!"'
    assert spans_text(text, detect(text)) == [["Hurrah for Blythe, Medalist!"]]


def test_detect_quoted_exclamation_after_speech_verb_is_speech():
    text = 'The Dodo suddenly called out "The race is over!" and they crowded round.'
    assert spans_text(text, detect(text)) == [["The race is over!"]]


def test_detect_indented_verse_in_a_book_of_unindented_dialogue_is_not_speech():
    dialogue = "".join(f'"Line {i}," said Tom.\n\n' for i in range(10))
    text = dialogue + 'He sang:\n\n    "Tra-la-la, the bees\n    are in the trees."\n\n"Stop," said Ann.'
    found = [t[0] for t in spans_text(text, detect(text))]
    assert "Stop," in found
    assert not any(t.startswith("Tra-la-la") for t in found)


def test_detect_verse_interrupted_by_its_cue_is_not_speech_in_any_piece():
    text = '"You are old," said the youth, "as I mentioned before,\n    And have grown most uncommonly fat;\n    Yet you turned a back-somersault in at the door."\n\n"Go on," said Alice.'
    assert spans_text(text, detect(text)) == [["Go on,"]]


def test_detect_song_sung_in_indented_stanzas_without_quote_marks_is_the_singers_quotation():
    text = (
        '"Where are you going?" asked Piglet.\n\n'
        "Pooh said nothing, and as he walked he sang a\nlittle song to himself. It went like this:\n\n"
        "    Isn't it funny\n    How a bear likes honey?\n\n"
        "    Buzz! Buzz! Buzz!\n    I wonder why he does?\n\n"
        "Then he sat down."
    )
    quotations = detect(text)
    assert spans_text(text, quotations) == [
        ["Where are you going?"],
        ["Isn't it funny\n    How a bear likes honey?", "Buzz! Buzz! Buzz!\n    I wonder why he does?"],
    ]
    song = quotations[1]
    assert (song.type, song.referring_expression) == ("anaphoric", "he sang")


@pytest.mark.parametrize(
    "intro",
    [
        "He took out the paper and read what she had written:",  # written, not sung
        "The stone bore these lines, cut deep:",
    ],
)
def test_detect_indented_lines_nobody_sings_are_not_speech(intro):
    text = intro + "\n\n    Isn't it funny\n    How a bear likes honey?\n\nThen he sat down."
    assert detect(text) == []


def test_detect_flush_left_verse_in_quotes_is_not_speech():
    prose = "".join(
        f"Line {i} of the narration runs on to the usual width of the page and\nthen wraps onto a second line like ordinary prose does.\n\n"
        for i in range(30)
    )
    text = prose + 'She repeated:\n\n"Sing a song of summer days,\nOf meadows green and bright,\nAnd rest beneath the evening haze."\n\n"Go on," he said.'
    assert spans_text(text, detect(text)) == [["Go on,"]]


def test_detect_letter_in_quoted_paragraphs_is_not_speech():
    text = (
        'The letter ran thus:\n\n"Dear Tom,"\n\n"We arrived on Monday and the weather is fine."\n\n'
        '"Your loving sister,"\n\n"Ann."\n\n"Dear me," said Tom, "she writes well."'
    )
    assert spans_text(text, detect(text)) == [["Dear me,", "she writes well."]]
    # A valediction that wraps across a line break.
    text = (
        '"Dear Tom,"\n\n"We arrived on Monday."\n\n"Your most\naffectionate sister,"\n\n"Ann."\n\n'
        '"Dear me," said Tom, "she writes well."'
    )
    assert spans_text(text, detect(text)) == [["Dear me,", "she writes well."]]
    # A valediction over several quoted lines, then the signature.
    text = (
        '"Dearest Lucia,"\n\n"I have news of you at last."\n\n"Believe me,"\n\n'
        '"Your anxious and loving cousin,"\n\n"Charlotte."\n\n"Dear me," said Tom, "she writes well."'
    )
    assert spans_text(text, detect(text)) == [["Dear me,", "she writes well."]]


@pytest.mark.parametrize(
    "text",
    [
        # a salutation set off by a dash (lost in conversion) or by a line of its own
        '"Dear Fanny,   You know our present wretchedness. May God support you."\n\n"Poor Edmund," said Fanny.',
        '"MY DEAR FANNY,--for so I may now always call you."\n\n"Poor Edmund," said Fanny.',
        '"Dear Catherine,\n    "Though God knows I have little inclination for writing."\n\n"Poor Edmund," said Fanny.',
        # a salutation signed with the writer's name, then the letter quoted paragraph by paragraph
        '"Dearest Diana" [wrote Anne],\n\n"Here it is Tuesday night."\n\n"Yours devotedly,"\n\n"Anne"\n\n"Poor Edmund," said Fanny.',
    ],
)
def test_detect_letters_that_open_with_a_salutation_are_not_speech(text):
    assert spans_text(text, detect(text)) == [["Poor Edmund,"]]


def test_detect_valediction_alone_on_a_quoted_line_is_not_speech():
    text = '    Dearest Catherine, beware how you give your heart.\n\n"Believe me," &c.\n\n"Your sister\'s marriage."'
    assert spans_text(text, detect(text)) == [["Your sister's marriage."]]


def test_detect_chapter_title_in_quote_marks_under_its_heading_is_not_speech():
    text = 'CHAPTER V.\n"IT ISN\'T STRYCHNINE, IS IT?"\n\n"Where did you find this?" I asked Poirot.'
    assert spans_text(text, detect(text)) == [["Where did you find this?"]]


def test_detect_letter_closing_down_to_a_signature_in_capitals_is_not_speech():
    text = (
        'He read it through.\n\n"I am, dear Madam,\n"Your most obedient\n"humble servant,\n"JOHN WILLOUGHBY."\n\n'
        '"Shameful!" cried Marianne.'
    )
    assert spans_text(text, detect(text)) == [["Shameful!"]]


def test_detect_spoken_address_that_runs_on_is_still_speech():
    text = 'Isabella was silent. "My dear friend,\nyou must not be angry with me."'
    assert spans_text(text, detect(text)) == [["My dear friend,\nyou must not be angry with me."]]


@pytest.mark.parametrize(
    "text",
    [
        'It bears as yet but one word: "AGNES." There is no coffin.',
        'The papers would blazon it out in staring headlines:\n\n"MYSTERIOUS TRAGEDY IN ESSEX"',
        'For the present, adieu.\n\n"M.D."',
    ],
)
def test_detect_words_in_capitals_that_neither_exclaim_nor_ask_are_not_speech(text):
    assert detect(text) == []


def test_detect_speech_shouted_in_capitals_is_still_speech():
    text = 'She did not quite catch.\n\n"A YOUNG LADY!"\n\n"I   I      "'
    assert spans_text(text, detect(text)) == [["A YOUNG LADY!"], ["I   I      "]]


@pytest.mark.parametrize(
    "intro",
    [
        "It ran in this way:",
        "On the back of the card was written:",
        "These were the contents--",
        "This was the letter   ",  # an em dash lost in conversion leaves spaces
        "When that gentleman opened it, he found it contained the words:",
        "The following letter was received to revive old sensations   ",
        "It was explained by the following letter, opened and read by her with curiosity:",
        "There was also a postscript to this\neffect.",
        "The first, which was the letter she had sent, was as follows:\n\nBerkeley Street, January.",
        "WINDSOR-JULY.\nMY DEAR MADAM,",  # a salutation line over the letter
    ],
)
def test_detect_written_words_set_out_under_their_introduction_are_not_speech(intro):
    text = (
        f"{intro}\n\n"
        '"Lost, a brown dog with a white ear. Whoever brings him back to the inn\n'
        'shall have a reward.\n\n'
        '"Apply to the landlord."\n\n'
        '"So he has lost his dog," said Tom.'
    )
    assert spans_text(text, detect(text)) == [["So he has lost his dog,"]]


def test_detect_written_words_set_out_under_narration_that_follows_a_quotation_are_not_speech():
    # Only the narration after the paragraph's last quotation introduces what comes below.
    text = '"Is she better?" she asked. The answer was only\nin this short note:\n\n"Miss Fairfax is quite unequal to any exercise."'
    assert spans_text(text, detect(text)) == [["Is she better?"]]
    text = '"Is she better?" she asked. Miss Alan began as follows:\n\n"The Emersons? I do not suppose it."'
    assert spans_text(text, detect(text)) == [["Is she better?"], ["The Emersons? I do not suppose it."]]


@pytest.mark.parametrize(
    "intro",
    [
        "She gave some instructions about letters, and her husband addressed me:",
        "Miss Alan began as follows:",
        "He folded the note and, looking up, said:",
    ],
)
def test_detect_speech_after_an_introduction_that_mentions_writing_is_still_speech(intro):
    text = f'{intro}\n\n"Is soldiering your regular profession?"'
    assert spans_text(text, detect(text)) == [["Is soldiering your regular profession?"]]


def test_detect_words_cued_by_wrote_are_a_letter_not_speech():
    text = '"In a place like this," she wrote, "one feels the past."\n\n"Poor girl," said Philip.'
    assert spans_text(text, detect(text)) == [["Poor girl,"]]


@pytest.mark.parametrize(
    "cued",
    [
        '"Some one in the hotel." The\nletter only said that.',
        'Then the letter went on to say, "We shall not go further than Athens."',
        'He had a theory. The theory ran: "All natives are criminals at heart."',
    ],
)
def test_detect_words_whose_cue_has_writing_or_a_thought_for_its_subject_are_not_speech(cued):
    text = cued + '\n\n"Poor girl," said Philip, taking out the letter.'
    assert spans_text(text, detect(text)) == [["Poor girl,"]]
    # A speaker holding the letter still speaks.
    text = 'Jane, taking out the letter, said, "This is from Caroline."'
    assert spans_text(text, detect(text)) == [["This is from Caroline."]]


@pytest.mark.parametrize(
    "text",
    [
        'He smiled a smile which seemed to say, "You are a fool." Then he went out.',
        'He rebelled and, instead of saying, "Does that matter?" he went out.',
        'He rebelled and, instead\nof saying, "Does that matter?" he went out.',  # the phrase wraps
        'She could have\nsaid, "Go away." But she smiled and he went out.',
        'If she had said, "Do you worship one god or several?" he would not have objected.',  # counterfactual
        'Then I got a wire: "Back on Monday." He came on Monday.',  # a telegram
        'He took out a candy heart with a gold motto on it, "You are sweet." She ignored it.',
    ],
)
def test_detect_imagined_or_written_words_are_not_speech_even_when_their_phrase_wraps(text):
    assert detect(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'Kemp read this letter twice, "It is no hoax," he said. He put it down.',  # its own cue
        'He gladly received the letter and, having read it through, returned it saying, "Well, so be it."',
        'He unfolded the paper as he spoke, and added, "It is a set of verses."',
    ],
)
def test_detect_speech_by_someone_holding_a_paper_is_still_speech(text):
    assert len(detect(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        'Books written afterwards say "Yes." But how can it be remembered?',
        'He had written in the margin, "Is not this delightful news?" Fielding announced that he had gone.',
        'She seized the scrap of paper on which Edmund had begun writing, and read these words, "My very dear Fanny."',
        'She came back with a small bottle labeled yellowly, "Best Vanilla." Marilla took it.',
        'An elevation of a cave was produced; it was lettered\n"Buddhist Cave." Nobody spoke.',
        'The play was praised, but the notice contained the following sentence: "Miss Derek forgot her words."',
    ],
)
def test_detect_written_words_introduced_by_their_clause_are_not_speech(text):
    assert detect(text) == []


def test_detect_reported_speech_in_quotes_inside_narration_is_not_speech():
    text = (
        'Mr. Weston began to move. "He must be going. He had business at the Crown, and '
        'he was afraid they should be late." His son rose too.'
    )
    assert detect(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'Mrs. Weston added, "that he could only allow himself time to hurry to Highbury."',
        'She was easy, and she assured him "that she was not at all afraid of the trouble."',
    ],
)
def test_detect_indirect_speech_quoted_from_that_on_is_not_speech(text):
    assert detect(text) == []


def test_detect_speech_resumed_with_that_after_its_cue_is_still_speech():
    text = '"I hope," said Oliver, "that nothing is the matter?"'
    assert spans_text(text, detect(text)) == [["I hope,", "that nothing is the matter?"]]
    text = 'He looked at the lock and said, "that is the way to do it."'
    assert spans_text(text, detect(text)) == [["that is the way to do it."]]


def test_detect_words_set_out_by_the_sentence_before_them_in_the_paragraph_are_not_speech():
    text = 'In the lowest corner were these\nwords--"I had not a spare moment on Tuesday."'
    assert detect(text) == []
    # A sentence someone spoke, and heard words, were said.
    text = "What it was, a short sentence of Miss Tilney's seemed to point out: \"I was going to take you into my mother's room.\""
    assert len(detect(text)) == 1

    text = 'Some one was there already, for Lucy heard the words: "A lady to wait, sir."'
    assert spans_text(text, detect(text)) == [["A lady to wait, sir."]]


def test_detect_third_person_speech_after_a_subjectless_speech_verb_is_still_speech():
    text = (
        'He looked up in astonishment; and, turning to his companion, said,\n'
        '"They were all in one story, and that boy had set them all on."'
    )
    assert len(detect(text)) == 1
    # Without the speech verb it reads as reported speech.
    text = 'He looked up in astonishment.\n"They were all in one story, and that boy had set them all on." He frowned.'
    assert detect(text) == []


def test_detect_lowercase_fragment_inside_narration_is_not_speech():
    text = 'His cousins were known to be "rather too fond of dancing and of late suppers," and nobody minded.'
    assert detect(text) == []


def test_detect_lowercase_quotation_finishing_the_sentence_of_the_paragraph_above_is_not_speech():
    text = 'From Pope, she learnt to censure those who\n\n"bear about the mockery of woe."\n\nShe read on.'
    assert detect(text) == []
    # Under a speech verb it is speech.
    text = 'And then the Secretary said\n\n"what a dreadful day it has been."\n\nShe read on.'
    assert len(detect(text)) == 1
    text = 'And then the Secretary replied in a low whisper\n\n"we shall see."\n\nShe read on.'
    assert len(detect(text)) == 1


def test_detect_speech_resumed_in_lowercase_is_still_speech():
    text = '"I think," she said, "that we ought to go."\n\nHe answered, "yes, at once."'
    assert spans_text(text, detect(text)) == [["I think,", "that we ought to go."], ["yes, at once."]]


def test_detect_name_given_after_a_naming_verb_is_not_speech():
    text = 'At school the boys called him "the Professor." He never minded it.'
    assert detect(text) == []
    # The naming phrase may wrap across a line break.
    text = 'In the village they called\nhim "the man who would not laugh at anything at all." He never minded it.'
    assert detect(text) == []
    text = 'One piece that lady played Edna had entitled "Solitude." It was short.'
    assert detect(text) == []
    text = 'It was one of those sentiments which are called by romancers "lawless passions." She knew it.'
    assert detect(text) == []
    text = 'A tall dispenser, whom Cynthia cheerily\naddressed as "Nibs." He nodded.'
    assert detect(text) == []


def test_detect_call_after_called_is_still_speech():
    text = 'She ran to the window. She called "Tom! Come in!" and waved her hand.'
    assert spans_text(text, detect(text)) == [["Tom! Come in!"]]


@pytest.mark.parametrize(
    "source",
    [
        "\n\n--GERTRUDE STEIN _in conversation_",  # a paragraph of its own
        "\n\n        \u2014 _Ecclesiastes_",  # centred, with an em dash
        "\n--Pope, _Essay on Man_",  # the next line of the same paragraph
    ],
)
def test_detect_epigraph_signed_by_its_source_is_not_speech(source):
    text = '"You are all a lost generation."' + source + '\n\nCHAPTER I\n\n"Come in," said Ann.'
    assert spans_text(text, detect(text)) == [["Come in,"]]


def test_detect_speech_before_a_paragraph_that_opens_with_a_dash_is_still_speech():
    # Narration that opens with a dash is no source line: its words are not all capitalised.
    text = '"Stop!"\n\n--But it was too late. The cart had gone.'
    assert spans_text(text, detect(text)) == [["Stop!"]]
    text = '"Stop!"\n\n--Said Ann, and ran.'
    assert spans_text(text, detect(text)) == [["Stop!"]]


# --------------------------------------------------------------------------- chapters, order, empty


def test_detect_keeps_a_speechless_reply_on_its_own_line():
    text = '"We might go in your umbrella," said Pooh.\n\n"?"\n\n"!!!!!!"\n\nHe looked at the "?" on the sign.'
    assert spans_text(text, detect(text)) == [["We might go in your umbrella,"], ["?"], ["!!!!!!"]]


def test_detect_sets_chapter_from_chapters():
    text = 'CHAPTER I\n\n"One," said Ann.\n\nCHAPTER II\n\n"Two," said Tom.'
    second = text.index("CHAPTER II")
    chapters = [Chapter(0, "CHAPTER I", 0, second), Chapter(1, "CHAPTER II", second, len(text))]
    assert [q.chapter for q in detect(text, chapters=chapters)] == [0, 1]


def test_detect_uses_paragraph_chapter_without_chapters():
    text = '"One," said Ann.'
    (q,) = detect_quotations(text, [Paragraph(0, 0, len(text), chapter=3)])
    assert q.chapter == 3


def test_detect_returns_quotations_in_text_order_with_origin_detected():
    text = '"A," said Ann.\n\n"B," said Tom. "C."\n\n"D."'
    quotations = detect(text)
    assert [q.start for q in quotations] == sorted(q.start for q in quotations)
    assert {q.origin for q in quotations} == {"detected"}


@pytest.mark.parametrize("text", ["", "No quotes at all here.", '"', '""', "''"])
def test_detect_degenerate_inputs(text):
    assert detect(text) == []


def test_find_segments_marks_paragraph_runs():
    text = '"First part\n\n"second part."'
    segs = find_segments(text, find_paragraphs(text), "double")
    assert [s.carried for s in segs] == [True, False]
