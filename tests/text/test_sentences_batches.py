"""spaCy reads the paragraphs in batches bounded by count and by characters (issue 37: a
book on one line made 128 pieces of 100,000 characters one batch, and 2 GB)."""

from __future__ import annotations

from litlens.model import Paragraph
from litlens.text import sentences
from litlens.text.sentences import BATCH_CHARS, BATCH_SIZE, _pipe_in_batches


class _RecordingNlp:
    """Stands in for a spaCy pipeline: returns each text and records the batches it was given."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def pipe(self, texts, batch_size):
        texts = list(texts)
        assert batch_size == len(texts)
        self.batches.append(texts)
        return iter(texts)


def _pieces(text: str, lengths: list[int]) -> list[tuple[Paragraph, int, int]]:
    out, start = [], 0
    for k, n in enumerate(lengths):
        out.append((Paragraph(k, start, start + n, None), start, start + n))
        start += n
    return out


def test_pipe_in_batches_keeps_novel_batches_of_batch_size() -> None:
    lengths = [300 + k % 500 for k in range(3 * BATCH_SIZE + 5)]
    text = "x" * sum(lengths)
    nlp = _RecordingNlp()
    docs = list(_pipe_in_batches(nlp, text, _pieces(text, lengths)))
    assert [len(b) for b in nlp.batches] == [BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, 5]
    assert [len(d) for d in docs] == lengths


def test_pipe_in_batches_bounds_the_characters(monkeypatch) -> None:
    monkeypatch.setattr(sentences, "BATCH_CHARS", 250)
    lengths = [100, 100, 100, 400, 50, 60, 200]
    text = "".join(chr(ord("a") + k) * n for k, n in enumerate(lengths))
    nlp = _RecordingNlp()
    docs = list(_pipe_in_batches(nlp, text, _pieces(text, lengths)))
    assert [[len(t) for t in b] for b in nlp.batches] == [[100, 100], [100], [400], [50, 60], [200]]
    assert "".join(docs) == text
    assert BATCH_CHARS >= 200_000  # a batch of 128 paragraphs of a novel is never cut
