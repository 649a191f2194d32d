"""Detect quotations of direct speech and type them like PDNC.

The stages, each a small function over plain offsets:

1. **Style.** :func:`quote_style` decides per book whether dialogue is in double quotes
   (straight ``"`` or curly ``“ ”``) or single quotes (``' '`` or ``‘ ’``, British style),
   by counting the paragraphs that open with each kind of mark.
2. **Segments.** Each paragraph is scanned for quote marks. Straight double quotes
   alternate; curly ones say which way they face (an opening mark inside an open
   quotation closes it: the closing mark was missing), unless their neighbours say
   they were printed the wrong way round ("where--“ said Alice"); a mark left alone
   between spaces by a lost dash ("tell you “ he went on") closes. In single-quote style an
   apostrophe is told from a quote mark by its neighbours (``don't``, ``o'clock``,
   ``'tis``, ``the Bennets' house``, ``goin' home``, ``comin'?'``): a closing candidate
   followed by a lower-case word that is no speech cue is kept in reserve and only used
   when the paragraph would otherwise end inside the quotation, or when another
   quotation opens. Marks of the other style are nested quotations and stay inside
   their outer quotation, unless the outer speaker retells a conversation: then the
   retold speech is cut out and each stretch of the speaker's own words around it is a
   quotation (a stage direction in parentheses is cut out of the spans too). In
   a book converted to plain ASCII that lost its curly apostrophes and single marks
   ("I don t know"), :func:`restore_lost_marks` first puts the nested marks back where
   spaces show them (``" Hum!  said he.  A fifth share!``); in one converted byte by byte
   (each dash and each opening single mark became three spaces, closing marks survived),
   :func:`restore_lost_single_opens` puts the opening marks back (``exclaim,    Why would
   not she have him?'``). A quotation with no word in it
   is dropped, unless it is a line of its own that is only ``"?"`` or ``"!!!"``: a
   speechless reply.
3. **Paragraph runs.** A quotation still open at the end of its paragraph continues
   into the next paragraph when that opens with a quote mark (the printer's convention
   for a long speech); otherwise it is closed at the paragraph's end (recovery from an
   unbalanced mark). PDNC annotates each paragraph of such a run as its own quotation,
   and so does :func:`detect_quotations` unless ``join_paragraphs=True`` (then one
   quotation with one span per paragraph).
4. **Interrupted speech.** Two quoted segments of one paragraph are one quotation with
   two spans (PDNC's sub-quotations) when the narration between them is one clause
   with a speech cue and the first segment does not end with a full stop
   (``"Well," said he, "I think…"``; a full stop right before a lower-case cue,
   ``"Yes." said he``, counts as a comma), or when there is no cue but the first segment
   ends with a comma. A full sentence of narration between them separates them unless
   it opens with the first segment's cue and the speech goes on past it (``"Jake," Mike
   said. He was almost crying. "You know…"``: no other speaker is cued and the second
   segment has no cue of its own). A second speaker introduced after the cue ("said
   the King; and the Rabbit called out,") or after "and" ("…, Tom," and Ann said,
   "…"), separates them; a pronoun after a comma
   ("said Tom, and then he added,") is the same speaker going on. In
   ``"A," said X. "B," he said. "C."`` and in ``"A," said X. "B," he added.`` each cue
   tags its own quotation. Then :func:`join_beats` joins an uncued quotation to the cued
   one before it across a short beat of action in the same paragraph (``"...," he said.
   We walked over to the bar. "What's…"``), unless a rule below says it is not speech,
   and :func:`split_uncued_asides` splits a quotation with no cue anywhere at a
   comma-ended aside (``"But that gentleman," looking at Darcy, "seemed…"``).
5. **Not speech.** PDNC does not annotate, and these are dropped:

   - titles, scare quotes and quoted words inside narration (``the "Coach and Horses"
     steps``), a chapter title quoted under its heading, names and titles given ("they
     called him "the Professor."", "a piece she had entitled "Solitude.""), and uncued
     fragments of the narrator's sentence that start in lower case;
   - quoted verse, set off by indentation or printed flush left in short lines (all the
     pieces of a verse quotation its cue interrupts, ``"You are old," said the youth, "as
     I…``), and epigraphs signed by a source line ("--GERTRUDE STEIN");
   - letters: set off by indentation, quoted paragraph by paragraph from "Dear …," to
     "Yours …," and the signature, opening with a salutation set off by a dash or a line
     of its own ("Dear Sir,--At your command"), or closing down to a signature in capitals;
   - written or imagined words ("the telegram read: "..."", "a smile which seemed to say,
     "..."", ""...," she wrote", ""...," the letter went on", capitals that neither exclaim
     nor ask, "AGNES."), and quoted paragraphs set out under narration that introduces
     writing ("It ran as follows:", "the following advertisement.", "he found it contained
     the words:") with the paragraphs that carry on from them;
   - reported speech in quote marks ("He was afraid they should have a very bad drive",
     'she assured him "that she was not at all afraid"').
6. **Types** come from the cue found by :mod:`litlens.quotes.types`: between the
   sub-quotations, else right after the quotation, else right before it (or at the end
   of the previous paragraph when that introduces it, "Elizabeth said:").
7. **Songs.** Indented stanzas printed without quote marks under narration that has a
   character sing them ("Winnie-the-Pooh sang this song:") are one quotation with a span
   per stanza, as PDNC annotates them (:func:`sung_verse`).

Spans exclude the quote marks and surrounding whitespace, like PDNC's ``quoteByteSpans``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from litlens.model import Chapter, EntityMention, Paragraph, Quotation
from litlens.quotes.types import (
    CLAUSE_LIMIT,
    SPEECH_NOUNS,
    Cue,
    Names,
    clause_start,
    cue_after,
    cue_before,
    is_speech_verb,
)

Style = Literal["double", "single"]

DOUBLE_MARKS = '"“”„'
SINGLE_MARKS = "'‘’"
_DOUBLE_OPEN = "“„"
_DOUBLE_CLOSE = "”"
# Punctuation a quotation can open after / close before.
_OPENS_AFTER = set("([{—–-_*/:;,")
_CLOSES_BEFORE = set(".,;:!?)]}—–-_*…")
# Words written with a leading apostrophe ('tis, 'em) — never an opening quote mark.
_ELISIONS = frozenset(
    """tis twas twere twill twould twouldn twasn twon twixt tween em im er ere ave ow
    un uns cause cos bout round fore neath gainst nother ud ll d s re ve m t n
    mongst midst prentice taint tother""".split()
)
_ABBREV_END = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Mme|Mlle|Messrs|Col|Capt|Gen|Lieut|Rev|Prof|Sr|Jr|No|Mt|[A-Z])\.$")
_SENT_BREAK = re.compile(r"[.!?]+[)\]]*\s+(?=[\"“‘'(_]*[A-Z0-9])")
# Lower-case words that may follow a closing quote mark directly ('No' she said).
_CUE_WORDS = frozenset("he she i they we you it his her and as".split())


@dataclass
class _Seg:
    para: int  # index into the paragraphs list
    start: int  # first character of the content (after the mark)
    end: int  # end of the content (before the closing mark or the paragraph's end)
    open_mark: int | None  # offset of the opening mark (None: the paragraph began inside)
    close_mark: int | None  # offset of the closing mark (None: open at the paragraph's end)
    carried: bool = False  # the quotation continues in the next paragraph
    reserve: int | None = None  # single style: an apostrophe-like mark that may close it
    resumes: bool = False  # continues the previous segment's speech after a cut-out stretch


def _letter(ch: str | None) -> bool:
    return ch is not None and ch.isalpha()


def quote_style(text: str, paragraphs: Sequence[Paragraph]) -> Style:
    """``"single"`` when the book writes dialogue in single quotes, else ``"double"``.

    Counts the paragraphs that open with a double mark against those that open with a
    single one (``'tis`` and other elisions excluded); when no paragraph opens with a
    quote mark, compares the number of double marks with the number of single marks in
    opening position.
    """
    n_double = n_single = 0
    for p in paragraphs:
        ch = text[p.start]
        if ch in DOUBLE_MARKS:
            n_double += 1
        elif ch in "'‘" and not _is_elision(text, p.start, p.end):
            n_single += 1
    if n_double or n_single:
        return "single" if n_single > n_double else "double"
    doubles = sum(text.count(c) for c in DOUBLE_MARKS)
    singles = 0
    for m in re.finditer(r"(?:^|(?<=[\s(\[—–-]))['‘](?=[^\W\d_])", text):
        if not _is_elision(text, m.start(), len(text)):
            singles += 1
    return "single" if singles > doubles else "double"


# A text whose curly apostrophes and single quote marks were lost in a conversion to
# plain ASCII ("I don t know", "Mrs. Allen s"): its nested quotation marks survive as spaces.
_LOST_APOSTROPHE = re.compile(
    r"\b(?:don|can|isn|won|didn|wasn|couldn|wouldn|shouldn|hasn|haven|hadn|aren|weren|doesn) t\b|(?<=[a-z]) s\b"
)
_APOSTROPHE = re.compile(r"n['’]t\b|(?<=[a-z])['’]s\b")
# Punctuation, then two spaces: a lost closing mark and a space (",’ said he"), or a space
# and a lost opening mark ("said he. ‘A fifth").
# A line break may stand for the space: ",\n said he", ". \nThen".
_LOST_MARK = re.compile(r"(?<=[,.!?;:])(?:  |\n | \n)(?=\S)")


def _is_cue(stretch: str) -> bool:
    """Is ``stretch`` a short speech cue between two pieces of retold speech ("said she;")?"""
    words = stretch.split()
    return 0 < len(words) <= 5 and any(is_speech_verb(w.strip(",;:")) for w in words)


def restore_lost_marks(text: str, paragraphs: Sequence[Paragraph]) -> str:
    """``text`` with the nested quote marks a plain-ASCII conversion turned into spaces put back.

    Only in a book whose apostrophes are lost as well, and only inside a quotation that
    opens its paragraph, up to its closing mark. ``" Hum!  said he.  A fifth share!``
    is a speaker retelling a conversation: the space after the double mark opens a nested
    quotation, and from there the marks alternate at punctuation followed by two spaces
    (or a space and a line break): the first space after "Hum!" closes it, the second
    space after "said he." opens the next. When the quotation does not open with a lost
    mark, a nested one opens only before a capital letter or after a short speech cue
    (``said she;  well, that``). Each mark replaces one space, so every offset stays the
    same. The loss shows in contractions ("don t") or, in a book that has few (Austen
    writes "do not"), in possessives ("Mrs. Allen s").
    """
    lost = len(_LOST_APOSTROPHE.findall(text))
    if lost < 10 or lost < 5 * len(_APOSTROPHE.findall(text)):
        return text
    chars: list[str] | None = None
    for p in paragraphs:
        if not (p.end - p.start > 3 and text[p.start] in DOUBLE_MARKS):
            continue
        nested_first = text[p.start + 1] == " " and text[p.start + 2].isupper()
        opens, closes = ([p.start + 1] if nested_first else []), []
        stop = next((i for i in range(p.start + 1, p.end) if text[i] in DOUBLE_MARKS), p.end)
        for m in _LOST_MARK.finditer(text, p.start + 2, stop):
            spaces = [i for i in range(m.start(), m.end()) if text[i] == " "]
            if len(opens) > len(closes):
                closes.append(spaces[0])
            elif nested_first or text[m.end()].isupper() or (closes and _is_cue(text[closes[-1] : m.start()])):
                opens.append(spaces[-1])
        if not closes:
            continue
        chars = chars if chars is not None else list(text)
        for i in opens:
            chars[i] = "‘"
        for i in closes:
            chars[i] = "’"
    return "".join(chars) if chars is not None else text


# A text whose every non-ASCII character became spaces, one per byte of its UTF-8 form:
# an em dash is three spaces between words ("nothing to\nintimidate   poor Indians"), and an
# opening curly single mark is three spaces too, while the closing one survived as a
# straight apostrophe ("I say to Shri Krishna,    Come! come to me only.' The god").
_LOST_DASH = re.compile(r"(?<=\w) {3}(?=\w)")
_REAL_DASH = re.compile(r"--|[—–]")
# A closing single mark that ends a nested quotation: after punctuation and before a space,
# a line break, more punctuation or the outer mark ("only.' The", "hire', you", "Tobacco,' in");
# or straight after a word and before punctuation or the outer mark ("wardrobe'?", "peace.'\"").
_NESTED_CLOSE = re.compile(r"(?<=[.,!?;:])['’](?=[\s.,!?;:\"”—-]|$)|(?<=\w)['’](?=[.,!?;:\"”])")
# Where the opening mark was lost: a run of spaces that is a word space and the mark's three
# (four or more spaces after a word or punctuation, "exclaim,    Why"), or the mark alone right
# after the outer quotation's mark or at the start of a line ('"   Darling Alfred\'').
_LOST_OPEN = re.compile(r"(?:(?<=[^\s\"“]) {4,}| {3,}(?<=[\"“\n] {3})| {3,}(?<=[\"“\n] {4}))(?=[^\W\d_])")


def restore_lost_single_opens(text: str, paragraphs: Sequence[Paragraph]) -> str:
    """``text`` with the opening nested marks that a byte-wise ASCII conversion turned into
    spaces put back, so retold speech is found as in any other book; offsets do not move.

    Only in a book where such a conversion shows (no dash anywhere, and many words joined by
    exactly three spaces where the dashes were), and only inside a paragraph's double-quoted
    stretches: every closing single mark of a nested quotation (``only.'``) gets its opening
    mark on the last space of the nearest run of lost-mark spaces before it, when no other
    closing mark or double mark comes between them. A plural possessive ("the Chiefs'
    Conference") has no such run before it and stays as it is.
    """
    if _REAL_DASH.search(text) is not None or len(_LOST_DASH.findall(text)) < 20:
        return text
    chars: list[str] | None = None
    for p in paragraphs:
        body = text[p.start : p.end]
        if not any(m in body for m in "'’") or not any(m in body for m in DOUBLE_MARKS):
            continue
        marks = [i + p.start for i, ch in enumerate(body) if ch in DOUBLE_MARKS]
        prev_close = -1
        for close in _NESTED_CLOSE.finditer(text, p.start, p.end):
            c, floor, prev_close = close.start(), prev_close + 1, close.start()
            k = bisect.bisect_left(marks, c)
            if k % 2 == 0:
                continue  # not inside a double-quoted stretch
            runs = list(_LOST_OPEN.finditer(text, max(marks[k - 1], floor), c))
            if not runs:
                continue
            chars = chars if chars is not None else list(text)
            chars[runs[-1].end() - 1] = "‘"
    return "".join(chars) if chars is not None else text


def _is_elision(text: str, pos: int, limit: int) -> bool:
    m = re.match(r"[^\W\d_]+", text[pos + 1 : min(limit, pos + 12)])
    if m is None:
        return pos + 1 < limit and text[pos + 1].isdigit()  # '45, '90s
    return m.group().lower() in _ELISIONS


# --------------------------------------------------------------------------- segments


def _double_segments(text: str, p: Paragraph, pi: int) -> tuple[list[_Seg], bool]:
    """Segments of one paragraph in double-quote style; the flag says it ends inside."""
    segs: list[_Seg] = []
    open_at: int | None = None
    for m in re.finditer(r'["“”„]', text[p.start : p.end]):
        i = p.start + m.start()
        ch = m.group()
        if open_at is None:
            if ch == _DOUBLE_CLOSE and not _faces_right(text, i, p.end):
                continue  # a stray closing mark
            open_at = i
            continue
        if ch in _DOUBLE_OPEN and not _faces_left(text, i, p.end) and not _stands_alone(text, i, p.end):
            # An opening mark inside a quotation: the closing mark is missing. Close the
            # open quotation at the mark and start again. (A mark alone between spaces is
            # a closing one after a dash lost in conversion, whichever way it is printed:
            # "to have a woman tell you “ he went on".)
            segs.append(_Seg(pi, open_at + 1, i, open_at, None))
            open_at = i
            continue
        segs.append(_Seg(pi, open_at + 1, i, open_at, i))
        open_at = None
    inside = open_at is not None
    if inside:
        segs.append(_Seg(pi, open_at + 1, p.end, open_at, None))  # type: ignore[operator]
    return segs, inside


def _faces_left(text: str, i: int, limit: int) -> bool:
    """Does the mark at ``i`` close what comes before it, whichever way it is printed?

    Smart-quote converters turn a closing mark after a dash into an opening one
    ("I don't much care where--“ said Alice"): a mark that follows a word or punctuation
    and is followed by a space, punctuation or the paragraph's end closes.
    """
    prev = text[i - 1] if i > 0 else " "
    nxt = text[i + 1] if i + 1 < limit else " "
    return not prev.isspace() and (nxt.isspace() or nxt in _CLOSES_BEFORE)


def _stands_alone(text: str, i: int, limit: int) -> bool:
    """Is the mark at ``i`` alone between spaces (or before the paragraph's end)?"""
    return i > 0 and text[i - 1].isspace() and (i + 1 >= limit or text[i + 1].isspace())


def _faces_right(text: str, i: int, limit: int) -> bool:
    """Does the mark at ``i`` open what follows it ("”Well," printed the wrong way)?"""
    prev = text[i - 1] if i > 0 else " "
    nxt = text[i + 1] if i + 1 < limit else " "
    return (prev.isspace() or prev in _OPENS_AFTER) and (nxt.isalnum() or nxt in "_'‘")


def _single_candidates(text: str, p: Paragraph) -> list[tuple[int, bool, bool, bool]]:
    """(offset, opens, closes, doubtful) for every single mark that may be a quote mark."""
    out = []
    for m in re.finditer(r"['‘’]", text[p.start : p.end]):
        i = p.start + m.start()
        ch = m.group()
        prev = text[i - 1] if i > p.start else None
        nxt = text[i + 1] if i + 1 < p.end else None
        if _letter(prev) and _letter(nxt):
            continue  # don't, o'clock, Bennet's
        if prev is not None and prev.isdigit() and (nxt is None or not nxt.isalnum()):
            continue  # 5' (feet)
        if _stands_alone(text, i, p.end):
            # A mark standing alone between spaces, however printed, closes an interrupted
            # speech whose dash was lost in conversion ("'I should like ' faltered the child.").
            out.append((i, False, True, False))
            continue
        opens = (prev is None or prev.isspace() or prev in _OPENS_AFTER or prev in DOUBLE_MARKS) and (
            nxt is not None and not nxt.isspace()
        )
        closes = (nxt is None or nxt.isspace() or nxt in _CLOSES_BEFORE or nxt in DOUBLE_MARKS) and (
            prev is not None and not prev.isspace()
        )
        if ch == "‘":
            closes = closes and not opens
            opens = opens or not closes
        elif ch == "’" and opens and not closes and _is_elision(text, i, p.end):
            continue  # ’tis written with a right quote: an elision, not a quotation
        if opens and _is_elision(text, i, p.end):
            opens = False
        doubtful = False
        if closes and _letter(prev):
            # goin' home / the Bennets' house: a lower-case word follows that is no cue.
            w = re.match(r"\s+([^\W\d_]+)", text[i + 1 : min(p.end, i + 30)])
            if w and w.group(1)[0].islower() and w.group(1).lower() not in _CUE_WORDS and not is_speech_verb(w.group(1)):
                doubtful = True
        if opens or closes:
            out.append((i, opens, closes, doubtful))
    return out


def _single_segments(text: str, p: Paragraph, pi: int) -> tuple[list[_Seg], bool]:
    segs: list[_Seg] = []
    open_at: int | None = None
    reserve: list[int] = []
    candidates = _single_candidates(text, p)
    for k, (i, opens, closes, doubtful) in enumerate(candidates):
        if open_at is None:
            if opens:
                open_at = i
                reserve = []
            continue
        if opens and not closes and reserve:
            # A new quotation opens while one is open: the reserved apostrophe-like mark
            # closed it ("they would 'do' till they had gone ... said: 'A view?'").
            segs.append(_Seg(pi, open_at + 1, reserve[-1], open_at, reserve[-1]))
            open_at = i
            reserve = []
            continue
        if closes and i > open_at + 1:
            if doubtful:
                reserve.append(i)
                continue
            if k + 1 < len(candidates):
                j, _, next_closes, _ = candidates[k + 1]
                if next_closes and j - i <= 3 and not text[i + 1 : j].strip(",.;:!?-—…"):
                    continue  # comin'?' / doin',' — the apostrophe ends the word, the mark follows
            segs.append(_Seg(pi, open_at + 1, i, open_at, i))
            open_at = None
    inside = open_at is not None
    if inside:
        assert open_at is not None
        segs.append(_Seg(pi, open_at + 1, p.end, open_at, None))
        if reserve:
            # Ends inside: unless a new paragraph continues the quotation (decided by the
            # caller), the last reserved apostrophe-like mark was the closing one.
            segs[-1].reserve = reserve[-1]
    return segs, inside


def _opens_with_mark(text: str, p: Paragraph, style: Style) -> bool:
    ch = text[p.start]
    if style == "double":
        return ch in '"“„'
    return ch in "'‘" and not _is_elision(text, p.start, p.end)


def find_segments(text: str, paragraphs: Sequence[Paragraph], style: Style) -> list[_Seg]:
    """Quoted segments of every paragraph, with runs over several paragraphs marked."""
    scan = _double_segments if style == "double" else _single_segments
    out: list[_Seg] = []
    for pi, p in enumerate(paragraphs):
        if p.end <= p.start:
            continue
        segs, inside = scan(text, p, pi)
        if inside:
            last = segs[-1]
            nxt = paragraphs[pi + 1] if pi + 1 < len(paragraphs) else None
            if nxt is not None and nxt.end > nxt.start and _opens_with_mark(text, nxt, style):
                last.carried = True
            elif last.reserve is not None:
                last.end = last.close_mark = last.reserve
        out.extend(segs)
    return _kept(out, text)


_SPEECHLESS = re.compile(r"[?!]+(?:\s*[?!.]+)*")


_LOST_DASH_TAIL = re.compile(r" {3,}")


def _kept(segs: list[_Seg], text: str) -> list[_Seg]:
    """``segs`` stripped of outer whitespace, without those that hold no word. A line that
    is nothing but a quoted "?" or "!!!" is a speechless reply and stays.

    A run of three or more spaces right before the closing mark is kept: in a text
    converted to ASCII it is a lost dash (``"But      "`` for "But——"), part of the
    broken-off speech, and PDNC's spans keep it.
    """
    for s in segs:
        end = s.end
        s.start, s.end = _strip(text, s.start, s.end)
        if s.close_mark == end and _LOST_DASH_TAIL.fullmatch(text, s.end, end):
            s.end = end
    return [s for s in segs if any(ch.isalnum() for ch in text[s.start : s.end]) or _speechless_reply(text, s)]


def _speechless_reply(text: str, s: _Seg) -> bool:
    if s.open_mark is None or s.close_mark is None or not _SPEECHLESS.fullmatch(text, s.start, s.end):
        return False
    line_start = text.rfind("\n", 0, s.open_mark) + 1
    line_end = text.find("\n", s.close_mark)
    return not text[line_start : s.open_mark].strip() and not text[s.close_mark + 1 : line_end if line_end >= 0 else len(text)].strip()


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# --------------------------------------------------------------------------- nested speech


def _nested_quotes(text: str, seg: _Seg, style: Style) -> list[_Seg]:
    """Quotations in the other style's marks inside ``seg`` (``'…'`` inside ``"…"``)."""
    inner = Paragraph(0, seg.start, seg.end, None)
    scan = _single_segments if style == "double" else _double_segments
    nested, _ = scan(text, inner, 0)
    closed = [n for n in nested if n.open_mark is not None and n.close_mark is not None]
    last = nested[-1] if nested else None
    if seg.close_mark is None and last is not None and last.open_mark is not None and last.close_mark is None and closed:
        closed.append(last)  # runs on to the end of the paragraph with its outer quotation
    return closed


def _retold(text: str, nested: _Seg, following: _Seg, names: Names) -> bool:
    """Is the nested quotation speech retold with its own cue ("'Oh!' said he, …")?"""
    if nested.close_mark is None:
        return False  # runs on to the end of the paragraph: no cue can follow it here
    if following.open_mark is not None and following.open_mark > nested.close_mark:
        start, stop = nested.close_mark + 1, following.open_mark
        return (cue_after(text, start, stop, names) or cue_before(text, start, stop, names)) is not None
    return cue_after(text, nested.close_mark + 1, following.end, names) is not None


# A parenthesis inside a quotation that is narration, not the speaker's own aside:
# "(looking towards her father)", "(with a smile)", "(here he looked at the door)".
_STAGE_DIRECTION = re.compile(r"\(\s*(?:[a-z]+ing|with|here|aside|then|after|again)\b[^()\"“”]{0,200}\)")


def _stage_directions(text: str, seg: _Seg) -> list[_Seg]:
    """Stage directions in parentheses inside ``seg``, as segments to cut out."""
    out = []
    for m in _STAGE_DIRECTION.finditer(text, seg.start, seg.end):
        if _FIRST_SECOND.search(m.group()):
            continue  # "(turning to you, my dear)": the speaker's own words
        out.append(_Seg(seg.para, m.start() + 1, m.end() - 1, m.start(), m.end() - 1))
    return out


def _split_at_nested_speech(text: str, seg: _Seg, style: Style, names: Names) -> list[_Seg]:
    """Leave out of a quotation the speech it retells and its stage directions, like PDNC.

    A speaker who retells a conversation (``"He looked up. 'Go home,' he said, 'and stay
    there.' So I went."``) speaks only the stretches between the retold speech; once one
    nested quotation has a cue of its own, every nested quotation that is not a mere
    mention is cut out. A stage direction in parentheses ("(with a smile)") is narration
    and is cut out too. Each of the speaker's stretches between retold speech is its own
    quotation, as PDNC mostly annotates them (on the 20 PDNC novels this beats keeping
    them as one quotation on both halves of the development split, though some books'
    annotators joined them); the stretches around a stage direction stay one quotation,
    one span each (``resumes``). A nested quotation still open where its outer one runs on
    into the next paragraph is cut out to the paragraph's end. A nested title, scare
    quote or word (``"He told me 'never again' and left"``), or nested words without a
    cue (``"just say 'not today'"``), stay inside.
    """
    nested = _nested_quotes(text, seg, style)
    if not any(_retold(text, n, nested[k + 1] if k + 1 < len(nested) else seg, names) for k, n in enumerate(nested)):
        nested = []
    inner = Paragraph(0, seg.start, seg.end, None)
    cuts = [n for k, n in enumerate(nested) if not _is_mention(text, n, nested[k + 1] if k + 1 < len(nested) else None, inner, names)]
    cuts = sorted(cuts + _stage_directions(text, seg), key=lambda n: n.start)
    if not cuts:
        return [seg]
    cuts = [n for k, n in enumerate(cuts) if k == 0 or n.start > cuts[k - 1].end]
    pieces: list[_Seg] = []
    start, open_mark = seg.start, seg.open_mark
    after_stage = False  # the last cut was a stage direction: the speech resumes after it
    for n in cuts:
        assert n.open_mark is not None
        pieces.append(_Seg(seg.para, start, n.open_mark, open_mark, None, resumes=bool(pieces) and after_stage))
        after_stage = text[n.open_mark] == "("
        start, open_mark = (n.close_mark + 1 if n.close_mark is not None else seg.end), None
    if start < seg.end:
        pieces.append(_Seg(seg.para, start, seg.end, open_mark, seg.close_mark, seg.carried, seg.reserve, resumes=after_stage))
    else:
        pieces[-1].carried = seg.carried
    return pieces


# --------------------------------------------------------------------------- not speech


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


_SALUTATION = re.compile(r"(?:my\s+)?(?:dear|dearest)\b[^.!?\n]{0,30},", re.IGNORECASE)
_VALEDICTION = re.compile(
    r"(?:yours\b|ever\s+yours\b|believe\s+me\b|(?:your|his|her)\s+(?:[\w-]+\s+){0,4}"
    r"(?:cousin|friend|sister|brother|servant|well-wisher|son|daughter|mother|father|niece|nephew|aunt|uncle)\b)"
    r"[^.!?\n]{0,40}[,.]?",
    re.IGNORECASE,
)


def _whole_quote(text: str, p: Paragraph, style: Style) -> str | None:
    """The content of a paragraph that is nothing but one quotation, else None."""
    body = text[p.start : p.end].strip()
    marks = DOUBLE_MARKS if style == "double" else SINGLE_MARKS
    if len(body) < 3 or body[0] not in marks or body[-1] not in marks or any(ch in marks for ch in body[1:-1]):
        return None
    return body[1:-1].strip()


def _leading_quote(text: str, p: Paragraph, style: Style) -> tuple[str, str] | None:
    """For a paragraph that opens with a quote mark: the first quotation's content and
    the rest of the paragraph after its closing mark (None when it never closes)."""
    body = text[p.start : p.end].strip()
    marks = DOUBLE_MARKS if style == "double" else SINGLE_MARKS
    if len(body) < 3 or body[0] not in marks:
        return None
    close = next((k for k in range(1, len(body)) if body[k] in marks), None)
    if close is None:
        return None
    return body[1:close].strip(), body[close + 1 :].strip()


def _signed_salutation(text: str, p: Paragraph, style: Style) -> bool:
    """A paragraph that is a quoted salutation and a few words saying who writes
    (``"Dearest Diana" [wrote Anne],``)."""
    lead = _leading_quote(text, p, style)
    if lead is None:
        return False
    content, rest = lead
    marks = DOUBLE_MARKS if style == "double" else SINGLE_MARKS
    if any(ch in marks for ch in rest) or len(rest.split()) > 6:
        return False
    return _SALUTATION.fullmatch(content.rstrip(",") + ",") is not None and re.search(rf"\b(?:{_WRITING}|writes)\b", rest) is not None


# A letter's salutation run on into its first line: "Dear Sir,--At your command",
# "MY DEAR FANNY,   for so I may" (a dash lost in conversion), or "Dear Catherine," over
# a new quoted line.
_LETTER_OPENING = re.compile(
    r"(?:my\s+)?dear(?:est)?\s+[^\W\d_]+(?:\s+[^\W\d_]+)?,\s*(?:--|[\u2014\u2013]| {2,}|\n\s*[\"\u201c'\u2018])",
    re.IGNORECASE,
)


def _opens_letter(text: str, group: list[_Seg]) -> bool:
    """Does a quotation open like a letter, with its salutation set off by a dash or a
    line of its own? Spoken address runs on with a comma ("My dear friend, you must
    not be angry")."""
    return _LETTER_OPENING.match(text, group[0].start) is not None


def _letter_paragraphs(text: str, paragraphs: Sequence[Paragraph], style: Style) -> set[int]:
    """Paragraphs of a letter printed in quote marks, one quoted paragraph per line of
    the letter: from a paragraph that is only a salutation ("Dear Tom,") to one that is
    only a valediction ("Yours truly,", "Your loving sister,") and the signature after
    it, with the address and date lines quoted just before the salutation ("Bath,"
    "Monday."). A letter is written, not said; PDNC does not annotate it."""
    quoted = [_whole_quote(text, p, style) for p in paragraphs]
    out: set[int] = set()
    for i, content in enumerate(quoted):
        if not (content is not None and _SALUTATION.fullmatch(content)) and not _signed_salutation(text, paragraphs[i], style):
            continue
        end = None
        for j in range(i + 1, min(len(paragraphs), i + 30)):
            if not _opens_with_mark(text, paragraphs[j], style):
                break
            if quoted[j] is not None and _VALEDICTION.fullmatch(quoted[j]):
                end = j
                break
        # A valediction may run over several quoted lines ("Believe me," "Your loving cousin,").
        while end is not None and end + 1 < len(paragraphs) and quoted[end + 1] is not None and _VALEDICTION.fullmatch(quoted[end + 1]):
            end += 1
        letter = set(range(i, (end if end is not None else i) + 1))
        if end is not None and end + 1 < len(paragraphs) and quoted[end + 1] is not None and len(quoted[end + 1].split()) <= 4:
            letter.add(end + 1)  # the signature
        k = i - 1
        while k >= 0 and i - k <= 2 and quoted[k] is not None and len(quoted[k].split()) <= 4 and quoted[k][-1:] in ",.":
            letter.add(k)  # "Tunbridge Wells," "September."
            k -= 1
        out |= letter
    out |= {i for i, p in enumerate(paragraphs) if _letter_closing(text, p, style)}
    return out


# The signature under a letter, on a quoted line of its own: "JOHN WILLOUGHBY.", "LUCY FERRARS."
_SIGNATURE_LINE = re.compile(r"[\"\u201c'\u2018]?\s*[A-Z][A-Z.'\u2019-]*(?:\s+[A-Z][A-Z.'\u2019-]*){0,3}\.?[\"\u201d'\u2019]?")


def _letter_closing(text: str, p: Paragraph, style: Style) -> bool:
    """A quoted paragraph that closes a letter: a valediction alone (``"Believe me," &c.``),
    or lines down to a signature in capitals (``"I am, dear Madam,\n"Your most
    obedient\n"humble servant,\n"JOHN WILLOUGHBY."``)."""
    if not _opens_with_mark(text, p, style):
        return False
    lead = _leading_quote(text, p, style)
    if lead is not None and lead[0].endswith(",") and _VALEDICTION.fullmatch(lead[0]) and lead[1] in {"", "&c.", "etc."}:
        return True  # '"Believe me," &c.' on a line of its own
    lines = [line.strip() for line in text[p.start : p.end].split("\n") if line.strip()]
    if len(lines) < 2 or not _SIGNATURE_LINE.fullmatch(lines[-1]) or not re.search(r"[A-Z]{2}", lines[-1]):
        return False
    closing = " ".join(line.strip(DOUBLE_MARKS + SINGLE_MARKS + " ") for line in lines[:-1])
    return bool(_VALEDICTION.search(closing) or re.match(r"I\s+am\b", closing))


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


# Words that tell of writing, for both rules below that drop written words.
_WRITING = r"wrote|written|printed|engraved|inscribed|scrawled|telegram|wire|cable|motto"

# The clause that introduces a quotation says it is written ...
_WRITTEN_WORDS = re.compile(
    rf"\b(?:{_WRITING}|writes|writing|reads?|painted|paper|postcard|card|placard|labell?ed|lettered|headed|sentence(?!\s+of)|passage(?!\s+of))\b",
    re.IGNORECASE,
)
# ... or only imagined.
_IMAGINED = re.compile(
    r"\bseemed\s+to\s+say\b|\bas\s+(?:if|much\s+as)\s+to\s+say\b|\bmeant\b|\binstead\s+of\s+saying\b"
    r"|\b(?:would|could|might|should)\s+(?:\w+\s+)?have\s+said\b"
    r"|\bif\s+(?:\w+\s+){1,3}had\s+(?:said|asked|answered|replied)\b",
    re.IGNORECASE,
)
# Every alternative of _IMAGINED and of _WRITTEN_WORDS holds one of these letter strings, so
# a clause with none of them is neither imagined nor written speech.
_UNUTTERED_HINT = re.compile(
    r"s(?:ay|entence)|meant|ha(?:ve|d)|headed|wr(?:it|ote)|print|engrav|inscrib|scrawl|telegram|wire|ca(?:ble|rd)"
    r"|motto|read|pa(?:int|per|ssage)|l(?:abel|etter)",
    re.IGNORECASE,
)


class _UnutteredHints:
    """Where :data:`_UNUTTERED_HINT` matches, paragraph by paragraph (each read once, when first
    asked): lets :func:`_not_uttered` skip a clause without reading it. In a paragraph of
    thousands of quotations and no full stop every clause is :data:`CLAUSE_LIMIT` long, and
    reading each one made detection take minutes."""

    def __init__(self, text: str):
        self.text = text
        self._spans: dict[int, tuple[list[int], list[int]]] = {}

    def any_within(self, index: int, paragraph: Paragraph, start: int, end: int) -> bool:
        """Could ``text[start:end]``, inside paragraph ``index``, hold a hint? (True when one
        overlaps it: matches do not overlap, so one that hides another covers its start.)"""
        spans = self._spans.get(index)
        if spans is None:
            found = [(m.start(), m.end()) for m in _UNUTTERED_HINT.finditer(self.text, paragraph.start, paragraph.end)]
            spans = self._spans[index] = ([a for a, _ in found], [b for _, b in found])
        starts, ends = spans
        k = bisect.bisect_right(ends, start)
        return k < len(starts) and starts[k] < end


# Speech verbs that go with writing: "a piece of folded paper, addressed:", "Books written
# afterwards say".
_WRITING_VERBS = frozenset("addressed headed labelled say says tell tells".split())


def _tags_from_after(text: str, group: list[_Seg], cue: Cue) -> bool:
    """Does ``cue`` follow a piece of the quotation that hands on to it with a comma, "!"
    or "?" (""It s no hoax," he said")? Then the cue is the quotation's own, not the next
    sentence's."""
    before = [s for s in group if s.close_mark is not None and s.close_mark < cue.start]
    if not before:
        return False
    return text[before[-1].start : before[-1].end].rstrip(" _*)")[-1:] in {",", "!", "?"}


def _not_uttered(
    text: str, group: list[_Seg], paragraphs: Sequence[Paragraph], cue: Cue | None = None, hints: _UnutteredHints | None = None
) -> bool:
    """Written words ("the telegram read: "..."") or imagined speech ("a smile which
    seemed to say, "...""), told by the clause that introduces a quotation inside
    narration. PDNC annotates neither.

    Someone may still speak with a paper in hand: not when a speech verb follows the
    writing in the clause ("having read it through, returned it saying,") or a cue
    (``cue``, the quotation's own) tags the words after they open ("Kemp read this
    letter twice, "It s no hoax," he said.").
    ``hints`` (for ``text``) skips clauses that cannot match without reading them.
    """
    first = group[0]
    p = paragraphs[first.para]
    if first.open_mark is None or first.open_mark == p.start:
        return False
    # The clause starts at or after max(p.start, open_mark - CLAUSE_LIMIT) (see clause_start).
    if hints is not None and not hints.any_within(first.para, p, max(p.start, first.open_mark - CLAUSE_LIMIT), first.open_mark):
        return False
    clause = text[clause_start(text, p.start, first.open_mark) : first.open_mark]
    if _IMAGINED.search(clause):
        return True
    writing = list(_WRITTEN_WORDS.finditer(clause))
    if not writing:
        return False
    if cue is not None and _tags_from_after(text, group, cue) and not _written_cue(cue):
        return False
    words = re.findall(r"[^\W\d_]+", clause[writing[-1].end() :])
    return not any(
        is_speech_verb(w) and w.lower() not in _WRITE_OR_READ and w.lower() not in _WRITING_VERBS and not _WRITTEN_WORDS.fullmatch(w)
        for w in words
    )


# A speech word after one of these is a noun ("The answer was only this short note:").
_DETERMINERS = frozenset("the a an this that his her their my your our its".split())
_WRITE = frozenset("write writes wrote written writing".split())
_WRITE_OR_READ = _WRITE | {"read", "reads", "reading"}

# Words in the last clause of a paragraph of narration that introduces written words set
# out below it: "It ran in this way:", "on which was written:", "This was the letter--".
_WRITTEN_BELOW = re.compile(
    rf"\b(?:letters?|notes?(?! of)|contents|postscript|advertisement|notice|inscription|as\s+follows|in\s+this\s+way|"
    rf"{_WRITING})\b",
    re.IGNORECASE,
)


def _tells_of_writing(clause: str) -> bool:
    """Does narration say that written words follow ("It ran in this way:", "These were the
    contents--")? Not when it has someone speak ("instructions about letters, and her
    husband addressed me:", "Miss Alan began as follows:")."""
    if _WRITTEN_BELOW.search(clause) is None:
        return False
    words = re.findall(r"[^\W\d_]+", clause)
    return not any(
        is_speech_verb(w)
        and w.lower() not in _WRITE_OR_READ
        and not _WRITTEN_BELOW.fullmatch(w)
        and (k == 0 or words[k - 1].lower() not in _DETERMINERS)
        for k, w in enumerate(words)
    )


# The place and date that head a letter: "Berkeley Street, January.", "Hunsford, near Westerham, Kent, 15th October."
_DATELINE = re.compile(r"[A-Z][^\W\d_]*(?:[ -][A-Za-z][^\W\d_]*){0,3},(?:\s*[\w-]+\.?){1,5}\.?")
_DATE_WORD = re.compile(
    r"\d|\b(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)
_SETS_OUT = re.compile(r"\b(?:to\s+this\s+effect|in\s+these\s+words|as\s+follows|thus)$", re.IGNORECASE)
_FOLLOWING_WRITING = re.compile(r"\bfollowing\s+(?:letter|advertisement|notice|lines|note)\b", re.IGNORECASE)


def _unspoken_words(clause: str) -> bool:
    """Does narration end by setting out "the words" with nobody saying them ("the
    communication consisted entirely of the words:", "he found it contained the words:")?
    "he went on in these words:" has a speaker."""
    words = re.findall(r"[^\W\d_]+", clause)
    if not words or words[-1].lower() != "words":
        return False
    return not any(is_speech_verb(w) or w.lower() in {"heard", "hear", "hearing"} for w in words[-9:-1])


def _written_below(text: str, group: list[_Seg], paragraphs: Sequence[Paragraph]) -> bool:
    """A quotation that opens its paragraph under narration ending by saying that written
    words follow ("It was as follows:", "he had scrawled on a piece of paper:"). PDNC
    annotates neither letters nor notices."""
    first = group[0]
    if first.para == 0 or first.open_mark != paragraphs[first.para].start:
        return False
    prev = paragraphs[first.para - 1]
    raw = text[prev.start : prev.end].rstrip()
    if _DATELINE.fullmatch(raw.strip()) and _DATE_WORD.search(raw) and first.para >= 2:
        prev = paragraphs[first.para - 2]  # "Berkeley Street, January." heads the letter
        raw = text[prev.start : prev.end].rstrip()
    body = raw.rstrip(" \u00a0-\u2014:")
    marks = [k for k, ch in enumerate(body) if ch in DOUBLE_MARKS]
    if not body or len(marks) % 2 or (marks and marks[-1] == len(body) - 1):
        return False  # the paragraph ends inside or with a quotation
    end = len(body) + prev.start
    begin = prev.start + marks[-1] + 1 if marks else prev.start  # the narration after its last quotation
    clause = text[clause_start(text, begin, end) : end]
    if _SALUTATION.fullmatch(raw.rsplit("\n", 1)[-1].strip()):
        return True  # "WINDSOR-JULY.\nMY DEAR MADAM," over a letter quoted below it
    following = _FOLLOWING_WRITING.search(clause) is not None
    # A dash lost in conversion can leave only spaces at the line's end ("the contents   ").
    if raw[-1:] in {":", "-", "\u2014"} or re.match(r" {2,}\n", text[prev.end : prev.end + 8]):
        return following or _tells_of_writing(clause) or _unspoken_words(clause)
    if raw[-1:] == "." and _SETS_OUT.search(clause.rstrip(".")):
        return following or _tells_of_writing(clause)  # "There was also a postscript to this effect."
    return following


def _printed_in_capitals(text: str, group: list[_Seg]) -> bool:
    """Words in capitals that neither exclaim nor ask ("AGNES.", "MYSTERIOUS TRAGEDY IN
    ESSEX", "M.D."): a headline, an inscription, a signature, a notice. Speech shouted in
    capitals ends with "!" or "?" ("A YOUNG LADY!"), and a stammer ("I   I") is not
    a word or initials."""
    body = " ".join(text[s.start : s.end] for s in group).rstrip(" _*)'\u2019")
    if any(ch.islower() for ch in body) or not re.search(r"[^\W\d_]{2}|[^\W\d_]\.\s*[^\W\d_]\.$", body):
        return False
    return body[-1:] not in {"!", "?"}


_HEADING_LINE = re.compile(r"\s*(?:CHAPTER|Chapter|BOOK|Book|PART|Part|VOLUME|Volume)\s+[\w-]+\.?\s*\n\s*")


def _heading_title(text: str, group: list[_Seg], paragraphs: Sequence[Paragraph]) -> bool:
    """A chapter's title in quote marks on the line under its heading (``CHAPTER V.\n"IT
    ISN'T STRYCHNINE, IS IT?"``)."""
    first = group[0]
    if first.open_mark is None:
        return False
    return _HEADING_LINE.fullmatch(text, paragraphs[first.para].start, first.open_mark) is not None


# A source line under an epigraph: a dash, then a name or title ("--GERTRUDE STEIN _in
# conversation_", "— _Ecclesiastes_", "--Pope, _Essay on Man_").
_SOURCE_LINE = re.compile(r"\s*(?:--+|[\u2014\u2015\u2013])\s*(?P<source>[^\n\"\u201c\u201d]{1,80})\s*")
_SOURCE_SMALL = frozenset("a an the of in on to and by from de la von van le".split())


def _is_source_line(line: str) -> bool:
    """Is ``line`` the dash and source that sign an epigraph? Outside italics (``_in
    conversation_``) its words are all capitalised, bar small linking words, so a
    paragraph of narration that opens with a dash ("--But it was too late.") is not one."""
    m = _SOURCE_LINE.fullmatch(line)
    if m is None:
        return False
    plain = re.sub(r"_[^_]*_", " ", m.group("source"))
    words = re.findall(r"[^\W\d_]+", plain)
    if len(words) > 8 or not re.search(r"[^\W\d]", m.group("source")):
        return False
    return all(w[0].isupper() or w.lower() in _SOURCE_SMALL for w in words)


def _is_epigraph(text: str, group: list[_Seg], paragraphs: Sequence[Paragraph]) -> bool:
    """A quotation that fills its paragraph and is signed by a source line, under it in
    the same paragraph or in the next one ("You are all a lost generation." /
    "--GERTRUDE STEIN"): an epigraph, which nobody in the story speaks."""
    first, last = group[0], group[-1]
    if first.open_mark != paragraphs[first.para].start or last.close_mark is None:
        return False
    p = paragraphs[last.para]
    tail = text[last.close_mark + 1 : p.end]
    if tail.strip():
        return "\n" in tail and _is_source_line(tail)
    if last.para + 1 >= len(paragraphs):
        return False
    nxt = paragraphs[last.para + 1]
    return _is_source_line(text[nxt.start : nxt.end])


# A cue whose subject is a piece of writing or a thought: "the letter went on to say",
# "The contents of her last note", "The theory ran".
_WRITTEN_SUBJECT = re.compile(
    r"(?:the|this|that|his|her|their|my|your|our|its|a|an)\s+(?:[^\W\d_]+\s+){0,2}?"
    r"(?:letters?|notes?|notices?|telegrams?|wire|cards?|postcards?|papers?|advertisement|placards?|"
    r"inscription|postscript|contents|theory)\b[^,;:]*",
    re.IGNORECASE,
)


def _written_before(text: str, group: list[_Seg], prev_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> bool:
    """An uncued quotation inside a paragraph, after a sentence of narration that sets out
    written words and has nobody speak ("Edmund's letter had this postscript. "On the
    subject of my last..."", "Compressed into the lowest corner were these words--"I had
    not a spare moment""): the :func:`_written_below` rule within one paragraph."""
    first = group[0]
    p = paragraphs[first.para]
    if first.open_mark is None or first.open_mark == p.start:
        return False
    begin = prev_seg.close_mark + 1 if prev_seg is not None and prev_seg.para == first.para and prev_seg.close_mark is not None else p.start
    # The narration before the quotation, read back from its end: after quotations left open
    # it runs from the paragraph's start, and copying it for each one was quadratic.
    before_end = first.open_mark
    while before_end > begin and text[before_end - 1].isspace():
        before_end -= 1
    if before_end == begin or text[before_end - 1] not in {":", "-", "\u2014"}:
        return False
    end = before_end
    while end > begin and text[end - 1] in " \u00a0-\u2014:.":
        end -= 1
    if end == begin:
        return False
    clause = text[clause_start(text, begin, end) : end]
    return _tells_of_writing(clause) or _unspoken_words(clause)


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


def _written_cue(cue: Cue) -> bool:
    """A cue whose only speech verb is writing ("she wrote", "wrote Miss Catharine"), or
    whose subject is writing or a thought ("the letter went on to say", "The theory ran"):
    the quotation is not spoken, and PDNC does not annotate it."""
    if _WRITTEN_SUBJECT.fullmatch(cue.text):
        return True
    verbs = [w.lower() for w in re.findall(r"[^\W\d_]+", cue.text) if is_speech_verb(w)]
    return bool(verbs) and all(v in _WRITE for v in verbs)


# --------------------------------------------------------------------------- grouping


def _has_sentence_break(mid: str) -> bool:
    core = mid.strip()
    for m in _SENT_BREAK.finditer(core):
        if m.end() >= len(core):
            continue
        if _ABBREV_END.search(core[: m.start() + 1]):
            continue
        return True
    return False


# Narration wholly in parentheses between two segments of one paragraph: a stage direction
# inside one continuing speech, not a new utterance.
_PAREN_ASIDE = re.compile(r"\s*\([^()\"\u201c\u201d]{1,200}\)\s*")


def _carries_on(text: str, a: _Seg, b: _Seg, last: str, cue: Cue | None, after_end: int, names: Names) -> bool:
    """Does a speech go on past narration of more than one sentence?

    ``"Jake," Mike said. He was almost crying. "You know I'm right."``: the narration opens
    with ``cue``, which tags ``a`` (whose ``last`` character is a comma, "!" or "?", so
    the cue belongs to it), no later clause introduces another speaker, and ``b`` has no
    cue of its own.
    """
    assert a.close_mark is not None and b.open_mark is not None
    if last not in {",", "!", "?"} or cue is None:
        return False
    if cue_before(text, a.close_mark + 1, b.open_mark, names) is not None:
        return False
    return b.close_mark is None or b.close_mark + 1 >= after_end or cue_after(text, b.close_mark + 1, after_end, names) is None


def _cue_goes_on(text: str, start: int, cue: Cue) -> bool:
    """Does the cue right after a closing mark continue the sentence ('"Yes." said he')?

    A lower-case cue (or "I said") straight after the mark shows that the full stop
    inside the quotation stands where a comma belongs.
    """
    lead = text[start : cue.start]
    return not lead.strip() and (text[cue.start].islower() or text[cue.start : cue.start + 2] == "I ")


def _link(text: str, a: _Seg, b: _Seg, after_end: int, names: Names) -> str | None:
    """How two segments of one paragraph join into one quotation: "cue", "plain" or None.

    "cue" when the narration between them is one clause that holds a speech cue
    (``"Well," said he, "I think"``) and the first segment does not end a sentence with
    a full stop; "plain" when there is no cue but the first segment ends with a comma
    (the sentence goes on). A second speech verb after the cue ("said the King; and the
    Rabbit called out,") introduces another quotation. Narration of several sentences
    separates two quotations unless the speech :func:`_carries_on` past it. ``after_end``
    bounds the narration after ``b`` (the next segment's opening mark or the paragraph's
    end).
    """
    if a.close_mark is None or b.open_mark is None:
        return None
    mid = text[a.close_mark + 1 : b.open_mark]
    if _PAREN_ASIDE.fullmatch(mid):
        return "plain"  # "… Mrs. Mann." (Here she set down the glass.) "I shall …": an aside
    if not mid.strip():
        return None
    last = text[a.start : a.end].rstrip(" _*)")[-1:]
    cue = cue_after(text, a.close_mark + 1, b.open_mark, names)
    if _has_sentence_break(mid):
        return "cue" if _carries_on(text, a, b, last, cue, after_end, names) else None
    if cue is not None:
        if last == "." and not _cue_goes_on(text, a.close_mark + 1, cue):
            return None
        if _second_cue(text, cue.end, b.open_mark, names, same_sentence=last == ","):
            return None
        return "cue"
    if last != ",":
        return None
    if re.match(r"\s*(?:and|;)\s", mid) and _second_cue(text, a.close_mark + 1, b.open_mark, names, same_sentence=True):
        return None  # "…, Tom," and Ann said, "…": the narration introduces the next speaker
    return "plain"


_MODALS = frozenset("to could would should might may must can will shall cannot".split())


def _second_cue(text: str, start: int, end: int, names: Names, same_sentence: bool = False) -> bool:
    """Does narration ``text[start:end]`` end by introducing a new speaker ("and Roo said,")?

    With ``same_sentence`` (the first segment ended with a comma, so its sentence goes on
    after the narration) a cue whose subject is a pronoun ("said Tom, and then he
    added,") refers back to the same speaker and introduces no one new.
    """
    cue = cue_before(text, start, end, names)
    if cue is None or (same_sentence and cue.subject == "pronoun"):
        return False
    words = re.findall(r"[^\W\d_]+", cue.text)
    if len(words) < 2 or words[-1].lower().endswith("ing"):
        return False
    return words[-2].lower() not in _MODALS


def _own_cue(text: str, segs: Sequence[_Seg], k: int, paragraphs: Sequence[Paragraph], names: Names) -> bool:
    """Is segment ``k`` followed by a cue of its own, before the next segment of its
    paragraph or the paragraph's end ('"B," he added.')?"""
    b = segs[k]
    if b.close_mark is None:
        return False
    end = _narration_stop(b, segs[k + 1] if k + 1 < len(segs) else None, paragraphs)
    if b.close_mark + 1 >= end:
        return False
    cue = cue_after(text, b.close_mark + 1, end, names)
    if cue is None or text[b.close_mark + 1 : cue.start].strip():
        return False
    last = text[b.start : b.end].rstrip(" _*)")[-1:]
    first = text[cue.start : cue.end].split()[0]
    return last == "," or (last in {"!", "?"} and (first[0].islower() or is_speech_verb(first)))


def _narration_stop(seg: _Seg, next_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> int:
    """Where the narration after ``seg`` ends: the next segment's opening mark when it is
    in the same paragraph, else the paragraph's end."""
    if next_seg is not None and next_seg.para == seg.para and next_seg.open_mark is not None:
        return next_seg.open_mark
    return paragraphs[seg.para].end


def _ends_sentence(text: str, a: _Seg, b: _Seg) -> bool:
    """Does the narration between two segments end with a full stop ("said Pooh. ")?"""
    assert a.close_mark is not None and b.open_mark is not None
    return text[a.close_mark + 1 : b.open_mark].rstrip()[-1:] in {".", "!", "?"}


def group_segments(
    text: str, segs: Sequence[_Seg], paragraphs: Sequence[Paragraph], names: Names, join_paragraphs: bool = False
) -> list[list[_Seg]]:
    """Join segments into quotations (see the module docs).

    A cue tags the segments on both sides of it, and a segment belongs to one cue: in
    ``"A," said X. "B," he said. "C."`` the second cue joins B and C, and A stands alone
    (PDNC annotates it so), as it does in ``"A," said X. "B," he added.``. Chains are
    resolved from the right.
    """
    links: list[str | None] = []
    for i, (a, b) in enumerate(pairwise(segs)):
        if b.resumes and b.para == a.para and a.close_mark is None:
            links.append("nested")
        elif a.carried and b.para == a.para + 1:
            links.append("paragraph" if join_paragraphs else None)
        elif a.para == b.para:
            after_end = _narration_stop(b, segs[i + 2] if i + 2 < len(segs) else None, paragraphs)
            links.append(_link(text, a, b, after_end, names))
        else:
            links.append(None)
    for i in range(len(links) - 1, -1, -1):
        if links[i] != "cue" or not _ends_sentence(text, segs[i], segs[i + 1]):
            continue
        if i + 1 < len(links) and links[i + 1] == "cue":
            links[i] = None
        elif _own_cue(text, segs, i + 1, paragraphs, names):
            links[i] = None
    groups: list[list[_Seg]] = []
    for i, seg in enumerate(segs):
        if i > 0 and links[i - 1] is not None:
            groups[-1].append(seg)
        else:
            groups.append([seg])
    return groups


# --------------------------------------------------------------------------- typing


def _narration_before(text: str, seg: _Seg, prev_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> tuple[int, int] | None:
    """The narration a cue may end with, right before ``seg``'s opening mark.

    Inside the paragraph: from the previous quotation's closing mark (or the paragraph's
    start). When the quotation opens its paragraph: the end of the previous paragraph,
    if that paragraph does not end inside or with a quotation and ends like an
    introduction ("Elizabeth said:", "and then the Secretary said").
    """
    if seg.open_mark is None:
        return None
    p = paragraphs[seg.para]
    if prev_seg is not None and prev_seg.para == seg.para:
        if prev_seg.close_mark is None:
            return None
        begin = prev_seg.close_mark + 1
    else:
        begin = p.start
    if begin < seg.open_mark:
        return begin, seg.open_mark
    if seg.para == 0:
        return None
    pp = paragraphs[seg.para - 1]
    begin = pp.start
    if prev_seg is not None and prev_seg.para == seg.para - 1:
        if prev_seg.close_mark is None:
            return None  # the previous paragraph ends inside a quotation
        begin = prev_seg.close_mark + 1
    tail = text[begin : pp.end].rstrip()
    if not tail or not (tail.endswith((":", ",", "—", "--")) or tail[-1].isalpha()):
        return None
    return begin, pp.end


def _narration_after(seg: _Seg, next_seg: _Seg | None, paragraphs: Sequence[Paragraph]) -> tuple[int, int] | None:
    """The narration right after ``seg``'s closing mark, up to the next quotation."""
    if seg.close_mark is None:
        return None
    return seg.close_mark + 1, _narration_stop(seg, next_seg, paragraphs)


def _find_cue(
    text: str,
    group: list[_Seg],
    prev_seg: _Seg | None,
    next_seg: _Seg | None,
    paragraphs: Sequence[Paragraph],
    names: Names,
) -> Cue | None:
    """The quotation's cue: between its sub-quotations, else right after, else right before."""
    for a, b in pairwise(group):
        if a.para == b.para and a.close_mark is not None and b.open_mark is not None:
            cue = cue_after(text, a.close_mark + 1, b.open_mark, names) or cue_before(text, a.close_mark + 1, b.open_mark, names)
            if cue:
                return cue
    after = _narration_after(group[-1], next_seg, paragraphs)
    if after is not None:
        cue = cue_after(text, after[0], after[1], names)
        if cue:
            return cue
    before = _narration_before(text, group[0], prev_seg, paragraphs)
    if before is not None:
        return cue_before(text, before[0], before[1], names)
    return None


# Narration between two pieces of one speech is short: a gesture, a pause, a change of voice.
_BEAT_WORDS = 25


def _beat_between(text: str, a: _Seg, b: _Seg) -> bool:
    """Is the narration between ``a`` and ``b`` (one paragraph) a short beat of action
    that does not introduce ``b`` as new speech?

    ``"... a mistake." He thought a moment. "Yes--really"`` or ``"..."--dreamily; she was
    not alarmed--"that you are"`` are beats. A last clause with a speech verb that does not
    end its sentence hands over to a new speech (``"...?" Then leaving her seat, added in a
    whisper, "..."``), even without a subject a cue could name.
    """
    assert a.close_mark is not None and b.open_mark is not None
    mid = text[a.close_mark + 1 : b.open_mark]
    if len(mid.split()) > _BEAT_WORDS or not re.search(r"[^\W\d_]", mid):
        return False
    if mid.rstrip().endswith((".", "!", "?")):
        return True
    last = text[clause_start(text, a.close_mark + 1, b.open_mark) : b.open_mark]
    return not any(is_speech_verb(w) for w in re.findall(r"[^\W\d_]+", last))


def join_beats(text: str, groups: list[list[_Seg]], paragraphs: Sequence[Paragraph], names: Names) -> list[list[_Seg]]:
    """Join an uncued quotation to the cued one before it in the same paragraph when only
    a beat of narration (:func:`_beat_between`) stands between them.

    ``"Come on, Jake," he said, "have a drink." We walked over to the bar. "What's the
    matter with you?"`` is one speaker going on after a gesture, and PDNC mostly
    annotates it as one quotation with several sub-spans (on the 20 PDNC novels such
    pairs are one quotation about twice as often as two). A second quotation with a cue
    of its own, after a first one without any, or that is not speech (reported, written
    or a name given) stays separate.
    """
    out: list[list[_Seg]] = []
    for gi, group in enumerate(groups):
        if out:
            a, b = out[-1][-1], group[0]
            if a.para == b.para and a.close_mark is not None and b.open_mark is not None and _beat_between(text, a, b):
                before = out[-2][-1] if len(out) > 1 else None
                after = groups[gi + 1][0] if gi + 1 < len(groups) else None
                if (
                    _find_cue(text, out[-1], before, b, paragraphs, names) is not None
                    and _find_cue(text, group, a, after, paragraphs, names) is None
                    and not _reported(text, group, paragraphs)
                    and not _not_uttered(text, group, paragraphs)
                    and not _is_name_given(text, group, paragraphs)
                ):
                    out[-1] = out[-1] + group
                    continue
        out.append(list(group))
    return out


def split_uncued_asides(
    text: str, groups: list[list[_Seg]], paragraphs: Sequence[Paragraph], names: Names
) -> list[list[_Seg]]:
    """Split a quotation that has no cue anywhere where a comma-ended aside of narration
    interrupts it (``"But that gentleman," looking at Darcy, "seemed to think…"``).

    PDNC joins the pieces of a speech around a cue; without one, such an aside (a gesture,
    a glance, a change of voice) separates two quotations about seven times in ten on the
    20 PDNC novels (18 against 7). The pieces were joined by :func:`_link` because the first ends with a
    comma; the aside itself must hold a word and end with a comma.
    """
    out: list[list[_Seg]] = []
    for gi, group in enumerate(groups):
        before = groups[gi - 1][-1] if gi > 0 else None
        after = groups[gi + 1][0] if gi + 1 < len(groups) else None
        if len(group) == 1 or _find_cue(text, group, before, after, paragraphs, names) is not None:
            out.append(group)
            continue
        piece = [group[0]]
        for a, b in pairwise(group):
            aside = ""
            if a.para == b.para and a.close_mark is not None and b.open_mark is not None:
                aside = text[a.close_mark + 1 : b.open_mark].strip()
            if aside.endswith(",") and re.search(r"[^\W\d_]", aside):
                out.append(piece)
                piece = [b]
            else:
                piece.append(b)
        out.append(piece)
    return out


# --------------------------------------------------------------------------- facade


def detect_quotations(
    text: str,
    paragraphs: list[Paragraph],
    chapters: list[Chapter] | None = None,
    persons: list[EntityMention] | None = None,
    *,
    join_paragraphs: bool = False,
) -> list[Quotation]:
    """Every quotation of direct speech in ``text``, typed, in text order.

    ``paragraphs`` bound the search (quotes only run across paragraphs as described in
    the module docs); ``chapters`` set :attr:`Quotation.chapter` (else the paragraph's
    chapter is used); ``persons`` (PERSON mentions, sorted by offset) help tell proper
    names in speech cues from capitalised common words.
    """
    paragraphs = sorted(paragraphs, key=lambda p: p.start)
    style = quote_style(text, paragraphs)
    if style == "double":
        text = restore_lost_single_opens(restore_lost_marks(text, paragraphs), paragraphs)
    segs = find_segments(text, paragraphs, style)
    names = Names(text, sorted(persons, key=lambda m: m.start) if persons else None)
    segs = _kept([piece for s in segs for piece in _split_at_nested_speech(text, s, style, names)], text)
    set_off = _indented_paragraphs(text, paragraphs, style) | _letter_paragraphs(text, paragraphs, style)
    speech: list[_Seg] = []
    for i, s in enumerate(segs):
        if s.para in set_off:
            continue
        if not _is_mention(text, s, segs[i + 1] if i + 1 < len(segs) else None, paragraphs[s.para], names, speech[-1] if speech else None):
            speech.append(s)
    segs = speech
    # A quotation with verse in any of its pieces is recited verse ('"You are old," said the
    # youth, "as I mentioned before,\n    And have grown most uncommonly fat;"').
    groups = [g for g in group_segments(text, segs, paragraphs, names, join_paragraphs) if not any(_is_verse(text, s) for s in g)]
    groups = split_uncued_asides(text, join_beats(text, groups, paragraphs, names), paragraphs, names)
    wrap = _wrap_width(text, paragraphs)
    hints = _UnutteredHints(text)
    out: list[Quotation] = []
    written_run = False  # inside a run of quoted paragraphs that are written words
    for gi, group in enumerate(groups):
        prev_seg = groups[gi - 1][-1] if gi > 0 else None
        next_seg = groups[gi + 1][0] if gi + 1 < len(groups) else None
        continues = written_run and prev_seg is not None and prev_seg.carried and group[0].para == prev_seg.para + 1
        written_run = continues or _written_below(text, group, paragraphs) or _opens_letter(text, group)
        if written_run:
            continue
        cue = _find_cue(text, group, prev_seg, next_seg, paragraphs, names)
        if cue is None and (_reported(text, group, paragraphs) or _narrators_fragment(text, group, prev_seg, paragraphs)):
            continue
        if cue is not None and (_written_cue(cue) or _that_clause(text, group, prev_seg)):
            continue
        if _not_uttered(text, group, paragraphs, cue, hints) or _is_name_given(text, group, paragraphs) or _is_short_lined_verse(text, group, wrap):
            continue
        if cue is None and (
            _is_epigraph(text, group, paragraphs)
            or _printed_in_capitals(text, group)
            or _written_before(text, group, prev_seg, paragraphs)
            or _heading_title(text, group, paragraphs)
        ):
            continue
        q = Quotation(spans=[(s.start, s.end) for s in group])
        if cue is not None:
            q.type = cue.type
            q.referring_expression = cue.text
            q.cue_span = (cue.start, cue.end)
        q.chapter = _chapter_of(q.start, paragraphs[group[0].para], chapters)
        out.append(q)
    return _with_sung_verse(text, paragraphs, out, names, chapters)


def _with_sung_verse(
    text: str, paragraphs: list[Paragraph], found: list[Quotation], names: Names, chapters: list[Chapter] | None
) -> list[Quotation]:
    """``found`` with each song of :func:`sung_verse` added as one quotation (replacing
    any quoted fragment inside its stanzas), typed by the cue that introduces it."""
    runs = sung_verse(text, paragraphs)
    if not runs:
        return found
    songs: list[Quotation] = []
    for run in runs:
        spans = [(paragraphs[k].start, paragraphs[k].start + len(text[paragraphs[k].start : paragraphs[k].end].rstrip())) for k in run]
        q = Quotation(spans=spans)
        intro = paragraphs[run[0] - 1]
        # The singer is the subject of the last singing verb: "as he climbed he sang a little
        # song to himself. It went like this:" is tagged by "he sang".
        verbs = [m for m in _SINGING.finditer(text, intro.start, intro.end) if m.group() != "song"]
        cue = cue_before(text, intro.start, verbs[-1].end(), names) if verbs else None
        if cue is not None and cue.end < verbs[-1].end():
            cue = None  # a cue further back, not the singer's ("hummed" is no speech verb)
        if cue is not None:
            q.type, q.referring_expression, q.cue_span = cue.type, cue.text, (cue.start, cue.end)
        q.chapter = _chapter_of(q.start, paragraphs[run[0]], chapters)
        songs.append(q)
    covered = [(q.spans[0][0], q.spans[-1][1]) for q in songs]
    kept = [q for q in found if not any(a <= q.start < b for a, b in covered)]
    return sorted(kept + songs, key=lambda q: q.start)


def _chapter_of(start: int, paragraph: Paragraph, chapters: list[Chapter] | None) -> int | None:
    """The chapter a quotation starting at ``start`` falls in: by ``chapters`` when given,
    else its paragraph's."""
    if not chapters:
        return paragraph.chapter
    k = bisect.bisect_right(chapters, start, key=lambda c: c.start) - 1
    return chapters[k].index if k >= 0 and start < chapters[k].end else None
