"""Quoted text that is not speech in the story: mentions, titles, verse, songs, reported speech.

Each rule is a predicate over a quoted segment (or a group of them) and the narration
around it; :func:`litlens.quotes.detect.detect_quotations` drops what they flag, since
PDNC does not annotate it:

* paragraphs set off by indentation in a book whose dialogue is not indented
  (:func:`_indented_paragraphs`);
* quoted verse, indented (:func:`_is_verse`) or flush left in short lines
  (:func:`_is_short_lined_verse`); :func:`sung_verse` finds songs printed without marks,
  which *are* annotated;
* titles, scare quotes and words inside narration (:func:`_is_mention`), names given
  ("they called him "the Professor"", :func:`_is_name_given`), fragments of the narrator's
  own sentence (:func:`_narrators_fragment`);
* reported speech in quote marks (:func:`_reported`, :func:`_that_clause`).

Written and imagined words (letters, notices, epigraphs) are in :mod:`litlens.quotes.written`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from litlens.model import Paragraph
from litlens.quotes.cues import cue_after
from litlens.quotes.lexicon import SPEECH_NOUNS, Names, is_speech_verb
from litlens.quotes.marks import DOUBLE_MARKS, Style, _opens_with_mark, _Seg


def _indent(text: str, p: Paragraph) -> int:
    line_start = text.rfind("\n", 0, p.start) + 1
    return p.start - line_start


def _indented_paragraphs(text: str, paragraphs: Sequence[Paragraph], style: Style) -> set[int]:
    """Paragraphs set off by indentation (verse, letters, notices) in a book whose
    dialogue paragraphs are not indented; PDNC does not annotate those as speech."""
    opening = [pi for pi, p in enumerate(paragraphs) if p.end > p.start and _opens_with_mark(text, p, style)]
    indented = {pi for pi, p in enumerate(paragraphs) if _indent(text, p) >= 2}
    if not opening or len(indented & set(opening)) > 0.2 * len(opening):
        return set()
    return indented


_ARTICLES = frozenset("a an the".split())


_VERSE_LINE = re.compile(r"\n[ \t]{2,}\S")


def _is_verse(text: str, seg: _Seg) -> bool:
    """Quoted verse (two or more indented lines inside the quotation): recited, not said."""
    return len(_VERSE_LINE.findall(text, seg.start, seg.end)) >= 2


def _wrap_width(text: str, paragraphs: Sequence[Paragraph]) -> int | None:
    """The width prose lines are wrapped at (the median of lines that do not end their
    paragraph), or None when paragraphs are not wrapped."""
    widths = []
    for p in paragraphs[:: max(1, len(paragraphs) // 400)]:
        widths += [len(line.rstrip()) for line in text[p.start : p.end].split("\n")[:-1]]
    if len(widths) < 20:
        return None
    return sorted(widths)[len(widths) // 2]


def _is_short_lined_verse(text: str, group: list[_Seg], wrap: int | None) -> bool:
    """Quoted verse printed flush left: every line of the quotation breaks well short of
    the book's wrapping width and the next one starts with a capital ("Sing a song of
    summer days,\nOf meadows green and bright,"). Verse is recited, not said."""
    start, end = group[0].start, group[-1].end
    if wrap is None or "\n" not in text[start:end]:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    lines = text[line_start : line_end if line_end >= 0 else len(text)].split("\n")
    if any(len(line.rstrip()) >= 0.75 * wrap for line in lines[:-1]):
        return False
    heads = [line.strip().lstrip("\"'‘“_") for line in lines[1:]]
    return all(h[:1].isupper() for h in heads if h)


# Narration that has someone sing what follows: "he sang a little song to himself. It went
# like this:", "Pooh hummed the third verse quietly to himself:".
_SINGING = re.compile(r"\b(?:sang|sing|sings|singing|hummed|hums|humming|chanted|chants|chanting|murmured|murmuring|song)\b")


def _verse_block_paragraph(text: str, p: Paragraph) -> bool:
    """A paragraph of two or more lines, most of them indented: a stanza set off as verse."""
    line_start = text.rfind("\n", 0, p.start) + 1
    lines = [line for line in text[line_start : p.end].split("\n") if line.strip()]
    return len(lines) >= 2 and sum(1 for line in lines if re.match(r"[ \t]{2,}\S", line)) >= 0.6 * len(lines)


def sung_verse(text: str, paragraphs: Sequence[Paragraph]) -> list[list[int]]:
    """Runs of indented stanzas, printed without quote marks, that narration right above
    them has a character sing ("Winnie-the-Pooh sang this song:", "he began to sing.").
    PDNC annotates a song sung in the story as the singer's quotation, one span per
    stanza. Each run is a list of paragraph indices."""
    runs: list[list[int]] = []
    i = 1
    while i < len(paragraphs):
        p, prev = paragraphs[i], paragraphs[i - 1]
        if not _verse_block_paragraph(text, p) or _verse_block_paragraph(text, prev):
            i += 1
            continue
        intro = text[prev.start : prev.end].rstrip()
        tail = intro[-150:]
        if intro[-1:] not in {":", "."} or any(ch in tail for ch in DOUBLE_MARKS) or not _SINGING.search(tail):
            i += 1
            continue
        run = [i]
        while run[-1] + 1 < len(paragraphs) and _verse_block_paragraph(text, paragraphs[run[-1] + 1]):
            run.append(run[-1] + 1)
        runs.append(run)
        i = run[-1] + 1
    return runs


_TITLE_SMALL = frozenset("a an the of on in to for and or at by with from upon o' de la".split())


def _is_title(content: str) -> bool:
    """A title in Title Case without final punctuation ("Bingen on the Rhine", "The Maiden's Vow")."""
    core = content.strip().rstrip(",")
    if not core or core[-1] in ".!?;:-—…" or "\n\n" in core:
        return False
    words = re.findall(r"[^\W\d_][\w'’]*", core)
    if not 2 <= len(words) <= 8:
        return False
    capital = [w for w in words if w[0].isupper()]
    lower = [w for w in words if not w[0].isupper() and w.lower() not in _TITLE_SMALL]
    return words[0][0].isupper() and len(capital) >= 2 and not lower


def _resumes_speech(text: str, prev_seg: _Seg | None, seg: _Seg) -> bool:
    """Does ``seg`` finish a sentence the previous quotation of its paragraph broke off
    ("It leavens the" -- she looked at him -- "stolid stupidity of the ordinary
    Englishman.")? The earlier piece stops without punctuation or on a dash, and this
    one starts in lower case and ends the sentence (a quoted word inside the aside,
    Poirot's "little ideas" were a byword, does not)."""
    if prev_seg is None or prev_seg.para != seg.para or prev_seg.close_mark is None:
        return False
    tail = text[prev_seg.start : prev_seg.end].rstrip(" _*")
    content = text[seg.start : seg.end]
    letter = re.search(r"[^\W\d_]", content)
    return (
        bool(tail)
        and (tail[-1].isalpha() or tail.endswith(("-", "—")))
        and letter is not None
        and letter.group().islower()
        and content.rstrip(" _*)'’")[-1:] in {".", "!", "?"}
    )


def _is_mention(text: str, seg: _Seg, next_seg: _Seg | None, p: Paragraph, names: Names, prev_seg: _Seg | None = None) -> bool:
    """A quoted word or phrase inside narration (a title, a scare quote, a sign), not speech.

    Such a quotation opens right after a word that is not a speech verb ("the
    "Coach and Horses" steps", "a "sneak";") and is short or does not end with
    punctuation; or it is a few words without final punctuation that the sentence
    continues after in lower case. A speech cue right after it ("said he") keeps it.
    """
    if seg.open_mark is None or seg.close_mark is None or _resumes_speech(text, prev_seg, seg):
        return False
    content = text[seg.start : seg.end]
    n_words = len(re.findall(r"\w+", content))
    ends_with_punct = content.rstrip("_*)]'’ ")[-1:] in {",", ".", "!", "?", ";", ":", "-", "—", "…"}
    i = seg.open_mark - 1
    while i >= p.start and text[i] in " \t\r\n":  # the line may wrap before the mark
        i -= 1
    after_word = False
    if i >= p.start and text[i].isalpha():
        before = re.findall(r"[^\W\d_]+", text[max(p.start, i - 40) : i + 1])[-3:]
        # "called out "The Queen!"", "an exclamation of "Lord!"", "said to the Knave "Turn!"";
        # but "called him a "sneak"" names something.
        after_word = before[-1].lower() in _ARTICLES or not any(is_speech_verb(w) or w.lower() in SPEECH_NOUNS for w in before)
    j = seg.close_mark + 1
    while j < p.end and text[j] in " \t\n":
        j += 1
    lower_after = j < p.end and text[j].islower()
    suspicious = (
        (after_word and (not ends_with_punct or n_words <= 6))
        or (n_words <= 3 and not ends_with_punct and lower_after)
        or (seg.open_mark > p.start and _is_title(content))
    )
    if not suspicious:
        return False
    stop = next_seg.open_mark if next_seg is not None and next_seg.para == seg.para and next_seg.open_mark is not None else p.end
    return cue_after(text, seg.close_mark + 1, stop, names) is None


_FIRST_SECOND = re.compile(
    r"\b(?:I|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|yourselves|"
    r"thee|thou|thy|let's|let’s)\b|\b(?:I'|I’)",
    re.IGNORECASE,
)
_THIRD = re.compile(r"\b(?:he|she|they|him|her|them|his|their|hers|theirs)\b", re.IGNORECASE)
_PAST_OR_MODAL = re.compile(r"\b(?:was|were|had|would|could|should|might|did)\b", re.IGNORECASE)


def _reported(text: str, group: list[_Seg], paragraphs: Sequence[Paragraph]) -> bool:
    """Reported speech in quote marks ("He was afraid they should have a very bad drive"):
    the 18th/19th-century habit of quoting indirect speech inside a paragraph of
    narration. PDNC does not annotate it. Only for uncued quotations that do not open
    their paragraph, have six words or more, no first or second person and a third
    person with a past or modal verb."""
    first = group[0]
    if first.open_mark is None or first.open_mark == paragraphs[first.para].start:
        return False
    body = " ".join(text[s.start : s.end] for s in group)
    if len(body.split()) < 6 or _FIRST_SECOND.search(body):
        return False
    if body.lstrip("_*")[:1].isupper() and _introduced_by_speech_verb(text, paragraphs[first.para].start, first.open_mark):
        return False  # 'turning to his companion, said,\n"They're all in one story"': speech
    return bool(_THIRD.search(body) and _PAST_OR_MODAL.search(body))


def _introduced_by_speech_verb(text: str, start: int, end: int) -> bool:
    """Does narration ``text[start:end]`` end with a speech verb among its last four
    words and a comma or colon, as a subjectless cue does ("and, turning to his
    companion, said,")?"""
    before = text[max(start, end - 80) : end].rstrip()
    if before[-1:] not in {",", ":"}:
        return False
    return any(is_speech_verb(w) for w in re.findall(r"[^\W\d_]+", before)[-4:])


def _narrators_fragment(text: str, group: list[_Seg], prev_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> bool:
    """A quoted fragment that continues the narrator's sentence ("his cousins were known to
    be "rather too fond of dancing,"", "she had a "perfectly dreadful cold."").

    Direct speech starts with a capital letter unless it resumes an interrupted speech;
    an uncued quotation inside narration that starts in lower case, with no quotation
    before it in its paragraph, is a phrase the narrator borrows. So is one that opens its
    paragraph in lower case right under a paragraph that breaks off mid-sentence with no
    speech verb ("From Pope, she learnt to censure those who\n\n"bear about the mockery of
    woe.""). PDNC does not annotate it.
    """
    first = group[0]
    p = paragraphs[first.para]
    letter = re.search(r"[^\W\d_]", text[first.start : first.end])
    if first.open_mark is None or letter is None or not letter.group().islower():
        return False
    if first.open_mark == p.start:
        if first.para == 0 or (prev_seg is not None and prev_seg.para == first.para - 1):
            return False
        prev = paragraphs[first.para - 1]
        tail = text[prev.start : prev.end].rstrip()
        words = re.findall(r"[^\W\d_]+", tail[-60:])
        return tail[-1:].isalpha() and not any(is_speech_verb(w) for w in words[-6:])
    return prev_seg is None or prev_seg.para != first.para


# Narration that ends by naming what follows: "whom the village called", "known as",
# "the sobriquet of". A word or phrase quoted after it is a name or label, not speech.
_NAMING = re.compile(
    r"(?:\b(?:called|call|calls|termed|named|dubbed|nicknamed|christened|entitled|titled|labell?ed)"
    r"(?:\s+(?:it|him|her|them|me|us|himself|herself|themselves|itself))?"
    r"|\b(?:known|think\s+of|thinks\s+of|thought\s+of|spoke\s+of|speaks\s+of|referred\s+to|refers\s+to|regarded|described|addressed)\s+as"
    r"|\b(?:sobriquet|epithets?|nickname|name)\s+of|\b(?:called|termed)\s+by\s+(?:\w+\s+){0,2}\w+)\s*$",
    re.IGNORECASE,
)


def _is_name_given(text: str, group: list[_Seg], paragraphs: Sequence[Paragraph]) -> bool:
    """A name or label quoted after a naming verb ("the boys called him "Carrots."",
    "a meek man whom people called "her husband""). A call (``She called "Victor!"``)
    ends with an exclamation or question mark and stays speech."""
    first = group[0]
    p = paragraphs[first.para]
    if first.open_mark is None or first.open_mark == p.start:
        return False
    if text[group[-1].start : group[-1].end].rstrip("_*)'’ ")[-1:] in {"!", "?"}:
        return False
    return _NAMING.search(text, max(p.start, first.open_mark - 60), first.open_mark) is not None


def _that_clause(text: str, group: list[_Seg], prev_seg: _Seg | None) -> bool:
    """Indirect speech in quote marks: a cued quotation that opens with "that" in lower
    case and carries on no speech before it in its paragraph ('she assured him "that she
    was not at all afraid"', 'Mrs. Weston added, "that he could only allow himself"').
    ('"I hope," said Oliver, "that nothing is the matter?"' resumes a speech.)"""
    first = group[0]
    if prev_seg is not None and prev_seg.para == first.para:
        return False
    # "that he was", "that it rained": a clause with its own subject, not "that is right"
    return re.match(r"that\s+(?:he|she|it|they|there|his|her|their|the|a|an|nothing|no|every|all|some)\b", text[first.start : first.end]) is not None
