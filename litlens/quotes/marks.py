"""Quote marks to quoted segments: the first stage of quotation detection.

:func:`quote_style` decides per book whether dialogue is in double quotes (straight ``"``
or curly ``“ ”``) or single quotes (``' '`` or ``‘ ’``, British style), by counting the
paragraphs that open with each kind of mark. :func:`find_segments` scans each paragraph
for marks and returns :class:`_Seg` records (content offsets, the marks' offsets, whether
the speech runs on into the next paragraph). Straight double quotes alternate; curly ones
say which way they face, unless their neighbours say they were printed the wrong way
round; in single-quote style an apostrophe is told from a quote mark by its neighbours.
:func:`restore_lost_marks` and :func:`restore_lost_single_opens` first repair books
converted to plain ASCII that lost their single marks. :func:`_kept` strips segments and
drops those with no word (a line that is only ``"?"`` is a speechless reply and stays).

The whole behaviour is described in :mod:`litlens.quotes.detect`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from litlens.model import Paragraph
from litlens.quotes.lexicon import is_speech_verb

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
