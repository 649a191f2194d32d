"""Detect quotations of direct speech and type them like PDNC.

:func:`detect_quotations` is the one entry point; it runs the stages below, each a small
function over plain offsets that lives in its own module (see the map in
:mod:`litlens.quotes`): stages 1-2 in :mod:`~litlens.quotes.marks` and
:mod:`~litlens.quotes.nested`, 3-4 in :mod:`~litlens.quotes.grouping`, 5 in
:mod:`~litlens.quotes.filters`, :mod:`~litlens.quotes.written` and
:mod:`~litlens.quotes.keep`, 6 in
:mod:`~litlens.quotes.types` (reading cues with :mod:`~litlens.quotes.cues`), 7 here and
in :mod:`~litlens.quotes.filters`.

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
5. **Not speech.** PDNC does not annotate the kinds of quoted text below. Each rule gives a
   signal; :mod:`~litlens.quotes.keep` decides from the signals (and the candidate's
   shape) whether to drop it: by default LightGBM trees learned from PDNC's own decisions
   decide the candidates such rules are about, and keep the rest; ``keep="rules"`` runs
   the hand-written chain. Indented or letter paragraphs, quoted words inside narration and
   quoted verse are dropped by rule before grouping.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from litlens.model import Chapter, EntityMention, Paragraph, Quotation
from litlens.quotes.cues import cue_before
from litlens.quotes.filters import _SINGING, _indented_paragraphs, _is_mention, _is_verse, _wrap_width, sung_verse
from litlens.quotes.grouping import group_segments, join_beats, split_uncued_asides
from litlens.quotes.joins import Boundary, boundaries, regroup
from litlens.quotes.keep import Candidate, candidates, rule_keeps, shipped_keeper
from litlens.quotes.lexicon import Names
from litlens.quotes.marks import _kept, _Seg, find_segments, quote_style, restore_lost_marks, restore_lost_single_opens
from litlens.quotes.nested import _split_at_nested_speech
from litlens.quotes.written import _letter_paragraphs

Keep = Literal["learned", "rules"]


@dataclass
class Found:
    """Detection up to the not-speech decision: the (repaired) text and the candidates."""

    text: str
    paragraphs: list[Paragraph]
    names: Names
    candidates: list[Candidate]


def detect_quotations(
    text: str,
    paragraphs: list[Paragraph],
    chapters: list[Chapter] | None = None,
    persons: list[EntityMention] | None = None,
    *,
    join_paragraphs: bool = False,
    keep: Keep = "learned",
) -> list[Quotation]:
    """Every quotation of direct speech in ``text``, typed, in text order.

    ``paragraphs`` bound the search (quotes only run across paragraphs as described in
    the module docs); ``chapters`` set :attr:`Quotation.chapter` (else the paragraph's
    chapter is used); ``persons`` (PERSON mentions, sorted by offset) help tell proper
    names in speech cues from capitalised common words. ``keep`` chooses who decides
    whether a candidate is speech (:mod:`litlens.quotes.keep`): the trees learned from
    PDNC (``"learned"``) or the hand-written rules (``"rules"``).
    """
    if keep not in ("learned", "rules"):
        raise ValueError(f"keep must be 'learned' or 'rules', not {keep!r}")
    found = detect_candidates(text, paragraphs, persons, join_paragraphs=join_paragraphs)
    if keep == "rules":
        kept = [rule_keeps(c.cue, c.signals) for c in found.candidates]
    else:
        kept = shipped_keeper().keeps(found.candidates)
    return assemble_quotations(found, kept, chapters)


def detect_candidates(
    text: str,
    paragraphs: Sequence[Paragraph],
    persons: list[EntityMention] | None = None,
    *,
    join_paragraphs: bool = False,
    joins: Callable[[list[Boundary]], Sequence[bool]] | None = None,
) -> Found:
    """Stages 1-4 of the module docs: the candidate quotations, each with its cue and the
    not-speech rules' signals, before anything is dropped as not speech (stage 5).

    ``joins``, when given, decides each boundary between two segments of a paragraph
    (:mod:`litlens.quotes.joins`) instead of the grouping rules."""
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
    if joins is not None:
        segs, bounds = boundaries(text, groups, paragraphs, names)
        groups = regroup(segs, {b.index: bool(d) for b, d in zip(bounds, joins(bounds), strict=True)}, groups)
    return Found(text, paragraphs, names, candidates(text, groups, paragraphs, names, _wrap_width(text, paragraphs)))


def assemble_quotations(found: Found, kept: Sequence[bool], chapters: list[Chapter] | None = None) -> list[Quotation]:
    """The candidates ``kept`` says are speech, typed by their cues, with the songs
    (stage 7) added, in text order."""
    out: list[Quotation] = []
    for c, keep_it in zip(found.candidates, kept, strict=True):
        if not keep_it:
            continue
        q = Quotation(spans=[(s.start, s.end) for s in c.group])
        if c.cue is not None:
            q.type = c.cue.type
            q.referring_expression = c.cue.text
            q.cue_span = (c.cue.start, c.cue.end)
        q.chapter = _chapter_of(q.start, found.paragraphs[c.group[0].para], chapters)
        out.append(q)
    return _with_sung_verse(found.text, found.paragraphs, out, found.names, chapters)


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
