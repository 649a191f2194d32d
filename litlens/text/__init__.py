"""Text: ingest (txt, Gutenberg txt/HTML, EPUB), cleaning, paragraphs, chapters, sentences.

:func:`build_structure` runs the structural stages on a book's stored text:
paragraphs, then chapters, then sentences and PERSON names in one spaCy pass.
"""

from __future__ import annotations

from litlens.errors import Cancelled as CancelledError
from litlens.model import Cancelled, Progress, Structure
from litlens.text.chapters import assign_chapters, find_chapters
from litlens.text.paragraphs import find_paragraphs
from litlens.text.sentences import analyze

__all__ = ["build_structure"]


def build_structure(
    text: str,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> Structure:
    """Chapters, paragraphs (with their chapter), sentences (with both) and PERSON mentions."""
    if cancelled is not None and cancelled():
        raise CancelledError("structure analysis")
    if progress:
        progress(0.0, "finding paragraphs and chapters")
    paragraphs = find_paragraphs(text)
    chapters = find_chapters(text, paragraphs)
    paragraphs = assign_chapters(paragraphs, chapters)
    sentences, persons = analyze(text, paragraphs, progress=_slice(progress, 0.02, 1.0), cancelled=cancelled)
    return Structure(chapters=chapters, paragraphs=paragraphs, sentences=sentences, persons=persons)


def _slice(progress: Progress | None, start: float, end: float) -> Progress | None:
    """Map a sub-step's [0, 1] onto [start, end] of the caller's range."""
    if progress is None:
        return None

    def report(fraction: float, message: str) -> None:
        progress(start + (end - start) * min(max(fraction, 0.0), 1.0), message)

    return report
