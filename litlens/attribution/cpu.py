"""The CPU speaker attributor: cues, mentions and turn taking, ranked by a small learned model.

``CpuAttributor.attribute(book)`` answers, for every quotation of a book, the speaker (a
character id of the book's list), a calibrated confidence and the addressees:

- the speaker is the ranker's best candidate (see :mod:`litlens.attribution.ranker`);
- the addressees are, in order of preference, the characters the quotation addresses
  by name (vocatives, not the speaker), else the speaker of the neighbouring quotation in
  the same exchange when that is somebody else, else the most recently mentioned other
  character nearby.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from litlens.attribution.base import Attribution
from litlens.attribution.context import BookContext, build_context
from litlens.attribution.features import recent_mentions
from litlens.attribution.model_file import ModelFileError
from litlens.attribution.ranker import PreparedBook, SpeakerRanker, load_ranker, prepare
from litlens.errors import Cancelled as CancelledError
from litlens.errors import InputFileError, NoCharactersError
from litlens.model import Cancelled, Character, EntityMention, Paragraph, Progress, Quotation

METHOD = "cpu"


@dataclass
class BookInput:
    """What the attributor reads: the text, its paragraphs and the quotations and characters with their ids."""

    text: str
    paragraphs: Sequence[Paragraph]
    quotations: Sequence[tuple[str, Quotation]]
    characters: Sequence[tuple[str, Character]]
    persons: Sequence[EntityMention] | None = None
    chapter_starts: Sequence[int] | None = None
    name: str = "book"


def load_model(path: str | Path) -> SpeakerRanker:
    """Read a model written by :func:`save_model` (``litlens train attributor``).

    The file holds data only (:mod:`litlens.attribution.model_file`); anything else, a
    pickled ``.joblib`` model included, is refused without being unpickled.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "no such attributor model file", "Train one with `litlens train attributor --pdnc DIR -o MODEL`")
    try:
        return load_ranker(path)
    except ModelFileError as exc:
        raise InputFileError(
            path, f"not a LitLens attributor model: {exc}",
            "Pass a file written by `litlens train attributor` of this LitLens, or retrain it with "
            "`litlens train attributor --pdnc DIR -o MODEL`",
        ) from exc


def save_model(ranker: SpeakerRanker, path: str | Path) -> None:
    ranker.save(Path(path))


def predict_addressees(context: BookContext, speakers: Sequence[int | None]) -> list[tuple[int, ...]]:
    """Addressee character indexes per quotation, given the predicted speakers (see module docs)."""
    out: list[tuple[int, ...]] = []
    quotes = context.quotes
    for i, qc in enumerate(quotes):
        me = speakers[i]
        voc = tuple(c for c in qc.vocatives if c != me)
        if voc:
            out.append(voc)
            continue
        found = None
        for j in (i - 1, i + 1, i - 2, i + 2):
            if 0 <= j < len(quotes) and abs(quotes[j].paragraph - qc.paragraph) <= 2:
                other = speakers[j]
                if other is not None and other != me:
                    found = other
                    break
        if found is None:
            recent = recent_mentions(context, qc.start, 3000, forward=False)
            for ci, _ in sorted(recent.items(), key=lambda t: t[1][0]):
                if ci != me:
                    found = ci
                    break
        out.append((found,) if found is not None else ())
    return out


class CpuAttributor:
    """Speaker attribution on a CPU in seconds; one method, one return type."""

    method = METHOD

    def __init__(self, ranker: SpeakerRanker):
        self.ranker = ranker

    @classmethod
    def from_file(cls, path: str | Path) -> CpuAttributor:
        return cls(load_model(path))

    def prepare(self, book: BookInput) -> PreparedBook:
        quotations = sorted(book.quotations, key=lambda t: (t[1].start, t[1].end))
        context = build_context(
            book.text, book.paragraphs, [q for _, q in quotations], [c for _, c in book.characters],
            book.persons, book.chapter_starts,
        )
        return prepare(book.name, context)

    def attribute(
        self,
        book: BookInput,
        *,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> list[Attribution]:
        """Speaker, confidence and addressees of every quotation (in text order).

        Raises :class:`~litlens.errors.NoCharactersError` when the book has no characters
        and :class:`~litlens.errors.Cancelled` when cancelled (nothing is returned then).
        """
        if not book.characters:
            raise NoCharactersError(
                f"{book.name}: there are no characters to choose speakers from. Add or discover characters first "
                "(re-run `litlens reanalyse`, or import a character list)"
            )
        report = progress or (lambda f, m: None)
        report(0.05, "reading cues and mentions")
        quotations = sorted(book.quotations, key=lambda t: (t[1].start, t[1].end))
        prepared = self.prepare(book)
        if cancelled and cancelled():
            raise CancelledError("speaker attribution")
        report(0.6, "ranking candidate speakers")
        predictions = self.ranker.predict(prepared)
        if cancelled and cancelled():
            raise CancelledError("speaker attribution")
        report(0.9, "finding addressees")
        speakers = [best for best, _ in predictions]
        addressees = predict_addressees(prepared.context, speakers)
        ids = [cid for cid, _ in book.characters]
        out = []
        for (qid, _), (best, conf), addr in zip(quotations, predictions, addressees):
            out.append(
                Attribution(
                    quotation_id=str(qid),
                    speaker=str(ids[best]) if best is not None else None,
                    confidence=round(float(conf), 4),
                    method=METHOD,
                    addressees=tuple(str(ids[a]) for a in addr),
                )
            )
        report(1.0, "attributed")
        return out
