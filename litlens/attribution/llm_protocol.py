"""The LLM speaker-attribution protocol of seed 003, with our own prompt wording.

Stages, each plain data in and out:

1. :func:`plan_chunks` — split each chapter into chunks of ``chunk_tokens`` tokens (counted
   with the model's own tokenizer) that overlap by ``stride_tokens`` (the seed's "stride":
   consecutive chunks share that many tokens, so the next chunk starts
   ``chunk_tokens - stride_tokens`` after the previous one). A chapter shorter than a chunk
   is one chunk. Chunk edges fall on paragraph boundaries and never cut a quotation.
2. :func:`build_request` — the passage with numbered markers ``[Q1]`` before every part
   of every quotation, the character list with aliases, and (incremental strategy) the
   answers already given for quotations the previous chunk shared with this one.
3. :func:`~litlens.attribution.llm_answers.parse_answer` — a tolerant reader for the model's JSON ``{quote_number: name}``
   (code fences, trailing commas, single quotes, truncated objects, prose around it).
4. :class:`AliasMap` — an answer counts only when it equals a character's name or alias
   after case and whitespace normalisation; anything else is kept as the raw answer and
   maps to no character (no fuzzy rescue).
5. :func:`run_protocol` — ask the backend chunk by chunk (chapters in parallel batches,
   chunks of one chapter in order), retry once with a repair instruction when an answer
   cannot be read, record failures and go on; every request/answer goes through a
   :class:`ChunkCache` so an interrupted run resumes and a re-run costs nothing.

This module is domain code: it takes a backend and a cache object and never touches the
project store.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from litlens.attribution.base import Attribution
from litlens.attribution.llm_answers import parse_answer
from litlens.errors import Cancelled as CancelledError
from litlens.errors import LitLensError, NoCharactersError
from litlens.llm import LLMBackend
from litlens.model import Cancelled, Progress

PROMPT_VERSION = "litlens-attr-llm-1"
DEFAULT_CHUNK_TOKENS = 4096
DEFAULT_STRIDE_TOKENS = 1024
ANSWER_TOKENS_PER_QUOTE = 12  # '"12": "Miss Daisy Miller",\n' is about 10 tokens
OPEN_QUOTES = "\"“‘'«"


# ---- plain data ----------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateCharacter:
    """A character the model may name: an id (what attributions store), a name, aliases."""

    id: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class QuoteRef:
    """A quotation to attribute: its id and its spans (offsets into the book text)."""

    id: str
    spans: tuple[tuple[int, int], ...]

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def end(self) -> int:
        return self.spans[-1][1]


@dataclass(frozen=True)
class Chunk:
    chapter: int  # index of the chapter in the list given to plan_chunks
    index: int  # position of the chunk within its chapter
    start: int
    end: int
    tokens: int
    quote_ids: tuple[str, ...]  # quotations wholly inside, in text order


@dataclass
class QuotePrediction:
    quote_id: str
    character_id: str | None  # None: no answer, or an answer that is no alias
    answer: str | None  # what the model wrote
    confidence: float
    chunk: tuple[int, int]  # (chapter, chunk index) of the deciding answer


@dataclass
class ChunkOutcome:
    chunk: Chunk
    status: str  # "ok", "partial", "failed", "empty"
    cached: bool
    answered: int  # quotations the answer named a character for
    problems: list[str] = field(default_factory=list)


@dataclass
class ProtocolResult:
    predictions: dict[str, QuotePrediction]
    chunks: list[ChunkOutcome]
    notes: list[str]
    chunk_tokens: int
    stride_tokens: int
    backend_requests: int  # requests actually sent to the backend (0 on a fully cached run)

    def summary(self) -> dict[str, Any]:
        status: dict[str, int] = {}
        for c in self.chunks:
            status[c.status] = status.get(c.status, 0) + 1
        mapped = sum(1 for p in self.predictions.values() if p.character_id is not None)
        return {
            "chunks": len(self.chunks),
            "chunks_cached": sum(1 for c in self.chunks if c.cached),
            "chunk_status": status,
            "backend_requests": self.backend_requests,
            "quotations": len(self.predictions),
            "attributed": mapped,
            "unmapped_answers": sum(
                1 for p in self.predictions.values() if p.character_id is None and p.answer
            ),
            "chunk_tokens": self.chunk_tokens,
            "stride_tokens": self.stride_tokens,
            "notes": list(self.notes),
        }


class ChunkCache(Protocol):
    """Where requests and answers are kept (the project's ``llm_cache`` table)."""

    def get(self, key: str) -> str | None: ...  # the raw answer, when cached

    def put(self, key: str, record: dict[str, Any]) -> None: ...


class MemoryCache:
    """A dictionary cache (used when no project is at hand)."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> str | None:
        rec = self.records.get(key)
        return None if rec is None else rec.get("raw_answer")

    def put(self, key: str, record: dict[str, Any]) -> None:
        self.records[key] = record


# ---- aliases -------------------------------------------------------------------------


def normalise_name(text: str) -> str:
    """Case-folded, whitespace-collapsed, stripped — the only leniency allowed."""
    return " ".join(text.split()).casefold()


class AliasMap:
    """Answers → character ids through the alias list only.

    An alias shared by two characters (PDNC has a few, e.g. "Miss Bennet") maps to neither.
    """

    def __init__(self, characters: Sequence[CandidateCharacter]):
        owners: dict[str, set[str]] = {}
        for c in characters:
            for alias in (c.name, *c.aliases):
                key = normalise_name(alias)
                if key:
                    owners.setdefault(key, set()).add(c.id)
        self._map = {k: next(iter(v)) for k, v in owners.items() if len(v) == 1}
        self.ambiguous = {k for k, v in owners.items() if len(v) > 1}
        self.names = {c.id: c.name for c in characters}

    def lookup(self, answer: str | None) -> str | None:
        if not answer:
            return None
        return self._map.get(normalise_name(answer))


# ---- chunking ------------------------------------------------------------------------


def _pieces(text: str, start: int, end: int, quotes: Sequence[QuoteRef]) -> list[tuple[int, int]]:
    """Paragraph-sized pieces of ``text[start:end]``, cut only at line breaks outside quotations."""
    inside = [(q.start, q.end) for q in quotes if q.start < end and q.end > start]
    cuts = [start]
    for m in re.finditer(r"\n\s*\n|\n", text[start:end]):
        c = start + m.end()
        if c < end and not any(qs < c < qe for qs, qe in inside):
            cuts.append(c)
    cuts.append(end)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _split_long(text: str, piece: tuple[int, int], tokens: int, budget: int, quotes: Sequence[QuoteRef]) -> list[tuple[int, int]]:
    """Cut a piece over ``budget`` tokens at spaces outside quotations (rare: huge paragraphs)."""
    a, b = piece
    parts = max(2, -(-tokens // max(1, budget)) + 1)
    step = (b - a) // parts
    inside = [(q.start, q.end) for q in quotes if q.start < b and q.end > a]
    cuts = [a]
    for k in range(1, parts):
        target = a + k * step
        pos = text.find(" ", target, b)
        while pos != -1 and any(qs <= pos < qe for qs, qe in inside):
            pos = text.find(" ", pos + 1, b)
        if pos == -1 or pos <= cuts[-1]:
            continue
        cuts.append(pos + 1)
    cuts.append(b)
    return [(x, y) for x, y in zip(cuts, cuts[1:]) if y > x]


def plan_chunks(
    text: str,
    chapters: Sequence[tuple[int, int]],
    quotes: Sequence[QuoteRef],
    count_tokens: Callable[[str], int],
    *,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
) -> list[Chunk]:
    """Chunks per chapter; only chapters holding a quotation produce chunks.

    ``chapters`` are ``(start, end)`` offsets. A quotation belongs to the chapter holding its
    start; one that no chapter holds gets a chapter spanning the whole text.
    """
    if chunk_tokens < 64:
        raise ValueError(f"chunk size of {chunk_tokens} tokens is too small (at least 64)")
    stride_tokens = max(0, min(stride_tokens, chunk_tokens // 2))
    spans = list(chapters) or [(0, len(text))]
    ordered = sorted(quotes, key=lambda q: (q.start, q.end))
    by_chapter: dict[int, list[QuoteRef]] = {}
    orphans: list[QuoteRef] = []
    for q in ordered:
        for ci, (cs, ce) in enumerate(spans):
            if cs <= q.start < ce:
                by_chapter.setdefault(ci, []).append(q)
                break
        else:
            orphans.append(q)
    if orphans:  # quotations outside every chapter: treat the text they lie in as one more
        spans = spans + [(min(q.start for q in orphans), max(q.end for q in orphans))]
        by_chapter[len(spans) - 1] = orphans
    chunks: list[Chunk] = []
    for ci in sorted(by_chapter):
        cs, ce = spans[ci]
        cq = by_chapter[ci]
        ce = max(ce, max(q.end for q in cq))
        cs = min(cs, min(q.start for q in cq))
        pieces: list[tuple[int, int, int]] = []
        for piece in _pieces(text, cs, ce, cq):
            n = count_tokens(text[piece[0] : piece[1]])
            if n > chunk_tokens:
                for sub in _split_long(text, piece, n, chunk_tokens, cq):
                    pieces.append((sub[0], sub[1], count_tokens(text[sub[0] : sub[1]])))
            else:
                pieces.append((piece[0], piece[1], n))
        chunks.extend(_pack(ci, pieces, cq, chunk_tokens, stride_tokens))
    return chunks


def _pack(ci: int, pieces: list[tuple[int, int, int]], quotes: Sequence[QuoteRef], size: int, overlap: int) -> list[Chunk]:
    out: list[Chunk] = []
    first = 0
    total = sum(p[2] for p in pieces)
    while first < len(pieces):
        used = 0
        last = first
        while last < len(pieces) and (used + pieces[last][2] <= size or last == first):
            used += pieces[last][2]
            last += 1
        start, end = pieces[first][0], pieces[last - 1][1]
        ids = tuple(q.id for q in quotes if q.start >= start and q.end <= end)
        out.append(Chunk(ci, len(out), start, end, used, ids))
        if last >= len(pieces) or total <= size:
            break
        # Next chunk: step back over whole pieces until about ``overlap`` tokens are shared.
        back = last
        shared = 0
        while back - 1 > first and shared + pieces[back - 1][2] <= overlap:
            back -= 1
            shared += pieces[back][2]
        first = max(back, first + 1)
    return out


# ---- prompts -------------------------------------------------------------------------

SYSTEM_PROMPT = (
    "You find out who speaks each quotation in a passage from a novel. You answer only "
    "with JSON."
)

REPAIR_PROMPT = (
    "I could not read that reply as JSON. Reply again with one JSON object only, in the form "
    "{example}, with one entry per tagged quotation and each name copied from the character "
    "list."
)


def marked_passage(text: str, chunk: Chunk, quotes: dict[str, QuoteRef]) -> str:
    """The chunk's text with ``[Qn]`` before each part of the n-th quotation (1-based)."""
    inserts: list[tuple[int, str]] = []
    for n, qid in enumerate(chunk.quote_ids, 1):
        for s, _e in quotes[qid].spans:
            pos = s
            while pos > chunk.start and text[pos - 1] in OPEN_QUOTES and s - pos < 2:
                pos -= 1
            inserts.append((pos, f"[Q{n}]"))
    inserts.sort()
    parts = []
    cursor = chunk.start
    for pos, tag in inserts:
        parts.append(text[cursor:pos])
        parts.append(tag)
        cursor = pos
    parts.append(text[cursor : chunk.end])
    return "".join(parts).strip()


def character_block(characters: Sequence[CandidateCharacter]) -> str:
    """One line per character: its name, then its other names in brackets."""
    lines = []
    for c in characters:
        others = [a for a in dict.fromkeys(c.aliases) if normalise_name(a) != normalise_name(c.name)]
        lines.append(f"- {c.name}" + (f" (also called: {'; '.join(others)})" if others else ""))
    return "\n".join(lines)


def build_request(
    passage: str,
    n_quotes: int,
    characters_text: str,
    previous: dict[int, str] | None = None,
    examples: Sequence[str] = ("<character name>", "<character name>"),
) -> list[dict[str, str]]:
    """The conversation for one chunk: characters, tagged passage, earlier answers, task.

    Short and format-first, which small instruct models follow far better than a long
    step-by-step instruction; the format example uses real names from the list because
    SmolLM2-135M copies a placeholder such as "<character name>" verbatim.
    """
    first = examples[0] if examples else "<character name>"
    second = examples[1] if len(examples) > 1 else first
    example = json.dumps({"1": first, "2": second}, ensure_ascii=False)[:-1] + ", ...}"
    tags = f"[Q1] to [Q{n_quotes}]" if n_quotes > 1 else "[Q1]"
    parts = [
        "Characters of the novel (any of the names in a line may be used for that character):\n"
        + characters_text,
        "Passage (each quotation of direct speech is preceded by a tag such as [Q1]; a "
        "quotation interrupted by narration has the same tag on each part):\n" + passage,
    ]
    if previous:
        shown = json.dumps({str(k): v for k, v in sorted(previous.items())}, ensure_ascii=False)
        parts.append(
            "This passage overlaps the previous one, where some of its quotations were already "
            "given these speakers. Keep them, or correct any that the passage shows to be "
            "wrong:\n" + shown
        )
    parts.append(
        f"For each tag {tags} in the passage, name the character who speaks that quotation, "
        "using a name from the character list. Reply with JSON only, like: " + example
    )
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def repair_request(
    conversation: list[dict[str, str]], bad_answer: str, examples: Sequence[str] = ("<character name>",)
) -> list[dict[str, str]]:
    name = examples[0] if examples else "<character name>"
    example = json.dumps({"1": name}, ensure_ascii=False)
    return conversation + [
        {"role": "assistant", "content": bad_answer[:2000]},
        {"role": "user", "content": REPAIR_PROMPT.format(example=example)},
    ]


def request_key(model: str, conversation: list[dict[str, str]], max_new_tokens: int) -> str:
    payload = json.dumps(
        {"model": model, "prompt_version": PROMPT_VERSION, "messages": conversation, "max_new_tokens": max_new_tokens},
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# ---- the run -------------------------------------------------------------------------


def answer_budget(n_quotes: int, cap: int) -> int:
    return max(16, min(cap, ANSWER_TOKENS_PER_QUOTE * n_quotes + 24))


def fit_chunk_size(
    backend: LLMBackend,
    characters_text: str,
    chunk_tokens: int,
    stride_tokens: int,
    max_answer_tokens: int,
) -> tuple[int, int, list[str]]:
    """Clamp the chunk size so prompt + passage + answer fit the model's context window."""
    notes: list[str] = []
    overhead = backend.count_tokens(
        SYSTEM_PROMPT + "\n".join(m["content"] for m in build_request("", 99, characters_text, {1: "x"}))
    )
    overhead += 64 + 8 * 40  # chat template, markers, earlier answers
    room = backend.context_window - overhead - max_answer_tokens
    if room < 256:
        raise LitLensError(
            f"the model's context window ({backend.context_window} tokens) leaves no room for a "
            f"passage after the instructions and character list ({overhead} tokens) and the answer "
            f"({max_answer_tokens}); use a model with a longer context or fewer characters"
        )
    if chunk_tokens > room:
        new_stride = max(0, min(stride_tokens, room // 4))
        notes.append(
            f"chunk size lowered from {chunk_tokens} to {room} tokens and stride from "
            f"{stride_tokens} to {new_stride} to fit {backend.name}'s context window of "
            f"{backend.context_window} tokens"
        )
        chunk_tokens, stride_tokens = room, new_stride
    return chunk_tokens, stride_tokens, notes


def run_protocol(
    backend: LLMBackend,
    text: str,
    chapters: Sequence[tuple[int, int]],
    quotes: Sequence[QuoteRef],
    characters: Sequence[CandidateCharacter],
    *,
    cache: ChunkCache | None = None,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    stride_tokens: int = DEFAULT_STRIDE_TOKENS,
    max_answer_tokens: int = 1024,
    batch_size: int = 4,
    incremental: bool = True,
    meta: dict[str, Any] | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ProtocolResult:
    """Attribute ``quotes`` to ``characters`` with ``backend`` following seed 003.

    ``meta`` (e.g. ``{"book_id": 3}``) is stored with each cache record. Raises
    :class:`NoCharactersError` when ``characters`` is empty and
    :class:`~litlens.errors.Cancelled` when ``cancelled()`` turns true (answers received so
    far stay in the cache). Backend errors (server down, timeout, out of memory) propagate
    after everything answered before them has been cached.
    """
    if not characters:
        raise NoCharactersError(
            "this book has no characters to attribute quotations to; discover characters "
            "(ingest or reanalyse) or import a PDNC character list first"
        )
    report = progress or (lambda f, m: None)
    cache = cache if cache is not None else MemoryCache()
    meta = dict(meta or {})
    aliases = AliasMap(characters)
    chars_text = character_block(characters)
    examples = [c.name for c in characters[:2]]
    chunk_tokens, stride_tokens, notes = fit_chunk_size(
        backend, chars_text, chunk_tokens, stride_tokens, max_answer_tokens
    )
    if aliases.ambiguous:
        notes.append(
            f"{len(aliases.ambiguous)} alias(es) belong to several characters and map to none: "
            + ", ".join(sorted(aliases.ambiguous)[:5])
        )
    by_id = {q.id: q for q in quotes}
    report(0.0, "planning chunks")
    chunks = plan_chunks(
        text, chapters, quotes, backend.count_tokens, chunk_tokens=chunk_tokens, stride_tokens=stride_tokens
    )
    per_chapter: dict[int, list[Chunk]] = {}
    for c in chunks:
        per_chapter.setdefault(c.chapter, []).append(c)
    predictions: dict[str, QuotePrediction] = {}
    history: dict[str, list[str | None]] = {}  # character ids answered per chunk, in order
    outcomes: list[ChunkOutcome] = []
    sent = 0
    done = 0
    wave = 0
    model_name = backend.name
    while True:
        ready = [cs[wave] for cs in per_chapter.values() if wave < len(cs)]
        if not ready:
            break
        for b in range(0, len(ready), max(1, batch_size)):
            if cancelled is not None and cancelled():
                raise CancelledError("LLM attribution")
            batch = ready[b : b + max(1, batch_size)]
            jobs = []
            for chunk in batch:
                previous: dict[int, str] = {}
                if incremental:
                    for n, qid in enumerate(chunk.quote_ids, 1):
                        p = predictions.get(qid)
                        if p is not None and p.character_id is not None:
                            previous[n] = aliases.names[p.character_id]
                passage = marked_passage(text, chunk, by_id)
                conv = build_request(passage, len(chunk.quote_ids), chars_text, previous, examples)
                budget = answer_budget(len(chunk.quote_ids), max_answer_tokens)
                jobs.append((chunk, conv, budget))
            answers, asked = _ask(backend, cache, model_name, jobs, meta, first=True)
            sent += asked
            # Retry once, with a repair instruction, the chunks whose answer cannot be read.
            retry_jobs = []
            parsed: dict[int, tuple[dict[int, str], list[str]]] = {}
            for i, ((chunk, conv, budget), (raw, _cached)) in enumerate(zip(jobs, answers)):
                pairs, problems = parse_answer(raw)
                parsed[i] = (pairs, problems)
                if chunk.quote_ids and not pairs:
                    retry_jobs.append((i, (chunk, repair_request(conv, raw, examples), budget)))
            if retry_jobs:
                re_answers, asked = _ask(backend, cache, model_name, [j for _, j in retry_jobs], meta, first=False)
                sent += asked
                for (i, _job), (raw, _cached) in zip(retry_jobs, re_answers):
                    pairs, problems = parse_answer(raw)
                    parsed[i] = (pairs, ["first answer unreadable; retried"] + problems)
            for i, (chunk, _conv, _budget) in enumerate(jobs):
                pairs, problems = parsed[i]
                cached = answers[i][1]
                answered = 0
                for n, qid in enumerate(chunk.quote_ids, 1):
                    answer = pairs.get(n)
                    cid = aliases.lookup(answer)
                    history.setdefault(qid, []).append(cid)
                    old = predictions.get(qid)
                    if answer is None and old is not None:
                        continue  # keep the earlier chunk's answer when this one skipped it
                    if cid is not None:
                        answered += 1
                    predictions[qid] = QuotePrediction(
                        qid, cid, answer, _confidence(history[qid], cid), (chunk.chapter, chunk.index)
                    )
                extra = sorted(set(pairs) - set(range(1, len(chunk.quote_ids) + 1)))
                if extra:
                    problems = problems + [f"answer names quotation numbers not in the passage: {extra[:5]}"]
                if not chunk.quote_ids:
                    status = "empty"
                elif not pairs:
                    status = "failed"
                elif answered < len(chunk.quote_ids):
                    status = "partial"
                else:
                    status = "ok"
                outcomes.append(ChunkOutcome(chunk, status, cached, answered, problems))
            done += len(batch)
            report(done / max(1, len(chunks)), f"chunk {done} of {len(chunks)}")
        wave += 1
    for q in quotes:
        if q.id not in predictions:
            predictions[q.id] = QuotePrediction(q.id, None, None, 0.0, (-1, -1))
    report(1.0, "attribution done")
    outcomes.sort(key=lambda o: (o.chunk.chapter, o.chunk.index))
    return ProtocolResult(predictions, outcomes, notes, chunk_tokens, stride_tokens, sent)


def _confidence(history: list[str | None], current: str | None) -> float:
    """A heuristic, uncalibrated score: LLM answers carry no probability here.

    0 without a mapped answer; 0.6 for one answer; 0.8 when an overlapping chunk agreed;
    0.5 when the later chunk changed the earlier answer.
    """
    if current is None:
        return 0.0
    earlier = [h for h in history[:-1] if h is not None]
    if not earlier:
        return 0.6
    return 0.8 if earlier[-1] == current else 0.5


def _ask(
    backend: LLMBackend,
    cache: ChunkCache,
    model_name: str,
    jobs: list[tuple[Chunk, list[dict[str, str]], int]],
    meta: dict[str, Any],
    *,
    first: bool,
) -> tuple[list[tuple[str, bool]], int]:
    """Answers for ``jobs`` (from the cache when there), caching each new one at once."""
    keys = [request_key(model_name, conv, budget) for _c, conv, budget in jobs]
    results: list[tuple[str, bool] | None] = []
    missing: list[int] = []
    for i, key in enumerate(keys):
        hit = cache.get(key)
        results.append((hit, True) if hit is not None else None)
        if hit is None:
            missing.append(i)
    asked = 0
    # Group by answer budget so one generate() call serves requests of similar size.
    groups: dict[int, list[int]] = {}
    for i in missing:
        groups.setdefault(jobs[i][2], []).append(i)
    for budget, idxs in sorted(groups.items()):
        convs = [jobs[i][1] for i in idxs]
        started = time.time()
        answers = backend.chat(convs, max_new_tokens=budget, temperature=0.0)
        asked += len(convs)
        for i, raw in zip(idxs, answers):
            chunk, conv, _ = jobs[i]
            pairs, problems = parse_answer(raw)
            n = len(chunk.quote_ids)
            status = "ok" if pairs and len(pairs) >= n else ("partial" if pairs else "failed")
            cache.put(
                keys[i],
                {
                    **meta,
                    "model": model_name,
                    "prompt_version": PROMPT_VERSION,
                    "chapter": chunk.chapter,
                    "chunk_index": chunk.index,
                    "attempt": 1 if first else 2,
                    "request": json.dumps(conv, ensure_ascii=False),
                    "raw_answer": raw,
                    "parsed_answer": json.dumps({str(k): v for k, v in sorted(pairs.items())}, ensure_ascii=False),
                    "status": status,
                    "error": "; ".join(problems) or None,
                    "seconds": round((time.time() - started) / max(1, len(convs)), 3),
                },
            )
            results[i] = (raw, False)
    return [r if r is not None else ("", False) for r in results], asked


def to_attributions(result: ProtocolResult, method: str) -> list[Attribution]:
    """The protocol's answers as :class:`Attribution` records (``method`` = "llm:<model>").

    Quotations without a mapped answer get ``speaker=None`` and confidence 0, so a run
    records that it looked at them.
    """
    return [
        Attribution(qid, p.character_id, p.confidence if p.character_id else 0.0, method)
        for qid, p in result.predictions.items()
    ]
