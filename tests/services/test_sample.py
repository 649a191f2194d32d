"""The sample a newcomer opens first: ingested and with its speakers attributed (CPU)."""

from __future__ import annotations

from litlens.services.books import list_quotations
from litlens.services.sample import has_attributions, prepare_sample


def test_sample_is_ingested_with_speakers_once(tmp_path, monkeypatch):
    project = tmp_path / "sample.litlens"
    result, summary = prepare_sample(project)
    assert not result.reused and summary is not None
    quotes = list_quotations(project, result.book.id)
    with_speaker = sum(1 for q in quotes if q["speaker"])
    assert len(quotes) > 1000 and with_speaker >= 0.95 * len(quotes)
    assert has_attributions(project, result.book.id)

    import litlens.services.sample as sample

    def never(*_args, **_kwargs):
        raise AssertionError("the speakers were attributed already; a second run must not redo it")

    monkeypatch.setattr(sample, "attribute_book", never)
    again, summary = prepare_sample(project)
    assert again.reused and summary is None
