"""Find a critical essay's quotations of the novel and turn each into a retrieval example.

Seed 000's procedure, adapted:

1. Split the essay into sentences; each sentence, and each passage it puts between quotation
   marks, is a possible quotation.
2. A piece quotes novel sentence *i* when RapidFuzz ``QRatio`` ≥ 80 (a piece that spans several
   novel sentences is split and each part matched).
3. A quotation with an ellipsis (``...`` or ``…``) is extended to the novel sentence, at most four
   sentences on, that shares a longest common substring of ≥ 15 characters with the part after the
   ellipsis.
4. Consecutive essay sentences that quote consecutive novel sentences are joined into one block
   quotation.
5. Each quotation becomes an example: up to 4 essay sentences of context on each side, ``[MASK]``
   where the quotation stood, and the gold window (at most 5 novel sentences).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from rapidfuzz import fuzz, process

from litlens.errors import EmptyInputError, InputFileError
from litlens.retrieval.datasets import MASK, MAX_WINDOW

QRATIO_MIN = 80.0
LCS_MIN = 15
CONTEXT = 4
MIN_CHARS = 12  # shorter pieces ("yes", a name) are not evidence

_SENT = re.compile(r"[^.!?…]*(?:[.!?…]+[\"”’')\]]*|$)\s*")
_QUOTED = re.compile(r"[\"“]([^\"“”]+)[\"”]")
_ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…)\s*")


@dataclass(frozen=True)
class EssayQuotation:
    essay_start: int  # character offsets of the quotation in the essay
    essay_end: int
    first: int  # first novel sentence quoted
    n: int  # number of novel sentences
    score: float
    text: str


def read_essay(path: str | Path) -> str:
    """Plain text of an essay in .txt, .pdf or .html."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "file does not exist", "Pass an essay as .txt, .pdf or .html")
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        from pypdf import PdfReader

        try:
            text = "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)
        except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds
            raise InputFileError(path, f"cannot read as PDF ({type(exc).__name__})", "Export the essay as .txt instead") from None
    elif suffix in (".html", ".htm"):
        import html

        raw = path.read_text(encoding="utf-8", errors="replace")
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        raw = re.sub(r"(?i)</?(p|div|br|blockquote|h\d|li)\b[^>]*>", "\n", raw)
        text = html.unescape(re.sub(r"<[^>]+>", " ", raw))
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = path.read_text(encoding="latin-1")
    if not text.strip():
        raise EmptyInputError(path, "has no text", "Pass an essay with some text (a scanned PDF needs OCR first)")
    return text


def essay_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of the essay; paragraph breaks also end a sentence."""
    spans = []
    for para in re.finditer(r"[^\n]+(?:\n(?!\s*\n)[^\n]+)*", text):
        base = para.start()
        for m in _SENT.finditer(para.group(0)):
            s, chunk = m.start(), m.group(0)
            if chunk.strip():
                lead = len(chunk) - len(chunk.lstrip())
                spans.append((base + s + lead, base + s + len(chunk.rstrip())))
    return spans


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[“”\"‘’'_]", "", text).lower().split())


def _lcs(a: str, b: str) -> int:
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


class QuotationFinder:
    def __init__(self, novel_sentences: Sequence[str], min_score: float = QRATIO_MIN) -> None:
        self.sentences = list(novel_sentences)
        self.normalised = [_norm(s) for s in self.sentences]
        self.min_score = min_score

    def match_piece(self, piece: str, inner: bool = True) -> tuple[int, int, float] | None:
        """(first sentence, count, score) of the novel sentences ``piece`` quotes, or None."""
        parts = [p for p in _ELLIPSIS.split(piece) if p.strip()]
        if not parts:
            return None
        head = self._match_sentences(parts[0], inner)
        if head is None:
            return None
        first, n, score = head
        for tail in parts[1:]:  # extend across each ellipsis with the LCS test
            tail_n = _norm(tail)
            if len(tail_n) < LCS_MIN:
                continue
            last = first + n - 1
            for j in range(last, min(last + CONTEXT + 1, len(self.sentences))):
                if _lcs(tail_n, self.normalised[j]) >= LCS_MIN:
                    n = j - first + 1
                    break
        return first, min(n, MAX_WINDOW), score

    def _match_sentences(self, piece: str, inner: bool = True) -> tuple[int, int, float] | None:
        subs = [piece[s:e] for s, e in essay_sentences(piece)] or [piece]
        found = []
        for sub in subs:
            norm = _norm(sub)
            if len(norm) < MIN_CHARS:
                continue
            best = process.extractOne(norm, self.normalised, scorer=fuzz.QRatio, score_cutoff=self.min_score)
            if best is None and not inner:
                return None if not found else _span(found)
            if best is None:
                # A quoted part of a longer sentence: the whole piece inside one sentence.
                hit = process.extractOne(norm, self.normalised, scorer=_inside, score_cutoff=95)
                if hit is None or len(norm) < 25:
                    run = self._contained_run(norm)
                    if run is None:
                        return None if not found else _span(found)
                    found += run
                    continue
                best = hit
            found.append((best[2], best[1]))
        return _span(found) if found else None

    def _contained_run(self, norm: str) -> list[tuple[int, float]] | None:
        """Novel sentences lying inside a long piece, extended to neighbours sharing ≥ 15 chars."""
        hits = process.extract(norm, self.normalised, scorer=_contains, score_cutoff=95, limit=MAX_WINDOW)
        if not hits:
            return None
        indices = sorted(h[2] for h in hits)
        first, last = indices[0], indices[-1]
        if last - first >= MAX_WINDOW:
            first = last = hits[0][2]
        if first > 0 and _lcs(norm, self.normalised[first - 1]) >= LCS_MIN:
            first -= 1
        if last + 1 < len(self.sentences) and _lcs(norm, self.normalised[last + 1]) >= LCS_MIN:
            last += 1
        score = min(h[1] for h in hits)
        if sum(len(self.normalised[i]) for i in set(indices)) < 0.6 * len(norm):
            return None  # the piece is mostly something else
        return [(i, score) for i in range(first, min(last, first + MAX_WINDOW - 1) + 1)]

    def find(self, essay: str) -> list[EssayQuotation]:
        spans = essay_sentences(essay)
        raw: list[EssayQuotation] = []
        for s, e in spans:
            sentence = essay[s:e]
            hit = self.match_piece(sentence, inner=False)  # a block quotation is a whole sentence
            if hit is not None:
                raw.append(EssayQuotation(s, e, hit[0], hit[1], hit[2], sentence))
                continue
            for m in _QUOTED.finditer(sentence):
                hit = self.match_piece(m.group(1))
                if hit is not None:
                    raw.append(EssayQuotation(s + m.start(), s + m.end(), hit[0], hit[1], hit[2], m.group(1)))
        return join_blocks(raw, essay)


def _inside(piece: str, sentence: str, **kwargs) -> float:
    """How well ``piece`` occurs inside ``sentence`` (0 when the piece is the longer one)."""
    return fuzz.partial_ratio(piece, sentence, **kwargs) if len(piece) <= len(sentence) else 0.0


def _contains(piece: str, sentence: str, **kwargs) -> float:
    """How well a novel ``sentence`` of 15+ characters occurs inside the essay ``piece``."""
    if len(sentence) < LCS_MIN or len(sentence) > len(piece):
        return 0.0
    return fuzz.partial_ratio(sentence, piece, **kwargs)


def _span(found: list[tuple[int, float]]) -> tuple[int, int, float] | None:
    indices = [i for i, _ in found]
    first, last = min(indices), max(indices)
    if last - first >= MAX_WINDOW or last - first + 1 > len(found) + 1:
        first = last = indices[0]
    return first, last - first + 1, min(s for _, s in found)


def join_blocks(quotes: list[EssayQuotation], essay: str) -> list[EssayQuotation]:
    """Join quotations that follow each other in the essay and continue or overlap each other in
    the novel into one block, so that one quoted passage is never listed as two overlapping ones."""
    out: list[EssayQuotation] = []
    for q in sorted(quotes, key=lambda q: q.essay_start):
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.first <= q.first <= prev.first + prev.n
            and not essay[prev.essay_end : q.essay_start].strip(" \n\t\"“”")
            and max(prev.first + prev.n, q.first + q.n) - prev.first <= MAX_WINDOW
        ):
            n = max(prev.first + prev.n, q.first + q.n) - prev.first
            out[-1] = EssayQuotation(prev.essay_start, q.essay_end, prev.first, n, min(prev.score, q.score),
                                     essay[prev.essay_start : q.essay_end])
        else:
            out.append(q)
    return out


def make_examples(essay: str, quotes: list[EssayQuotation], book: str, id_prefix: str = "essay") -> list[dict]:
    """RELiC-style examples: up to 4 essay sentences each side of [MASK]."""
    spans = essay_sentences(essay)
    examples = []
    for k, q in enumerate(quotes):
        before = [essay[s:e] for s, e in spans if e <= q.essay_start]
        after = [essay[s:e] for s, e in spans if s >= q.essay_end]
        inside = next(((s, e) for s, e in spans if s <= q.essay_start < e), None)
        left, right = before[-CONTEXT:], after[:CONTEXT]
        if inside is not None:  # the quotation sits inside an essay sentence: keep its frame
            prefix = essay[inside[0] : q.essay_start].strip()
            tail_end = next((e for s, e in spans if s < q.essay_end <= e), inside[1])
            suffix = essay[q.essay_end : tail_end].strip()
            if prefix and before and before[-1] == essay[inside[0] : inside[1]]:
                left = left[:-1]
            if prefix:
                left = (left + [prefix])[-CONTEXT:]
            if suffix:
                right = ([suffix] + [essay[s:e] for s, e in spans if s >= tail_end])[:CONTEXT]
        examples.append(
            {
                "id": f"{id_prefix}-{k + 1}",
                "book": book,
                "left": [" ".join(x.split()) for x in left],
                "right": [" ".join(x.split()) for x in right],
                "quote_start": q.first,
                "quote_len": q.n,
                "quote": " ".join(q.text.split()),
                "essay_start": q.essay_start,
                "essay_end": q.essay_end,
                "score": round(q.score, 1),
            }
        )
    return examples


def query_of(example: dict) -> str:
    return " ".join([*example["left"], MASK, *example["right"]])
