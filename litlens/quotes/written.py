"""Written or imagined words in quote marks: letters, notices, inscriptions, epigraphs.

Nobody in the story says them, and PDNC does not annotate them:

* letters quoted paragraph by paragraph from "Dear …," to "Yours …," and the signature
  (:func:`_letter_paragraphs`), or opening with a salutation set off by a dash or a line
  of its own (:func:`_opens_letter`);
* words the clause before them says are written or imagined ("the telegram read:", "a
  smile which seemed to say,", :func:`_not_uttered`), or whose cue is writing ("she
  wrote", "the letter went on", :func:`_written_cue`);
* quoted paragraphs set out under narration that introduces writing ("It ran as
  follows:", :func:`_written_below`; within a paragraph, :func:`_written_before`);
* capitals that neither exclaim nor ask (:func:`_printed_in_capitals`), a chapter title
  under its heading (:func:`_heading_title`) and epigraphs signed by a source line
  (:func:`_is_epigraph`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from litlens.model import Paragraph
from litlens.quotes.cues import CLAUSE_LIMIT, Cue, clause_start
from litlens.quotes.lexicon import is_speech_verb
from litlens.quotes.marks import DOUBLE_MARKS, SINGLE_MARKS, Style, _opens_with_mark, _Seg


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


def _written_cue(cue: Cue) -> bool:
    """A cue whose only speech verb is writing ("she wrote", "wrote Miss Catharine"), or
    whose subject is writing or a thought ("the letter went on to say", "The theory ran"):
    the quotation is not spoken, and PDNC does not annotate it."""
    if _WRITTEN_SUBJECT.fullmatch(cue.text):
        return True
    verbs = [w.lower() for w in re.findall(r"[^\W\d_]+", cue.text) if is_speech_verb(w)]
    return bool(verbs) and all(v in _WRITE for v in verbs)
