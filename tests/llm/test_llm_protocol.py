"""The seed-003 protocol's pure stages: parsing, alias mapping, chunking, markers, retries."""

from __future__ import annotations

import pytest

from litlens.attribution.llm_answers import parse_answer
from litlens.attribution.llm_protocol import (
    AliasMap,
    CandidateCharacter,
    Chunk,
    MemoryCache,
    QuoteRef,
    build_request,
    marked_passage,
    plan_chunks,
    request_key,
    run_protocol,
)
from litlens.errors import Cancelled, NoCharactersError

CHARS = [
    CandidateCharacter("0", "Elizabeth Bennet", ("Elizabeth", "Lizzy", "Miss Eliza")),
    CandidateCharacter("1", "Mr. Darcy", ("Darcy", "Fitzwilliam Darcy")),
    CandidateCharacter("2", "Jane Bennet", ("Jane", "Miss Bennet")),
    CandidateCharacter("3", "Mary Bennet", ("Mary", "Miss Bennet")),
]


def words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize(
    ("reply", "expected", "problem"),
    [
        ('{"1": "Darcy", "2": "Jane"}', {1: "Darcy", 2: "Jane"}, None),
        ('```json\n{"1": "Darcy"}\n```', {1: "Darcy"}, "code fence"),
        ('{"1": "Darcy", "2": "Jane",}', {1: "Darcy", 2: "Jane"}, "trailing comma"),
        ("{'1': 'Darcy', '2': 'Jane'}", {1: "Darcy", 2: "Jane"}, "single quotes"),
        ('{"1": "Darcy", "2": "Jane", "3": "Eliz', {1: "Darcy", 2: "Jane"}, "truncated object"),
        ('{"1": "Darcy", "2": "Jane"', {1: "Darcy", 2: "Jane"}, "truncated object"),
        ('Sure! Here you go: {"Q1": "Darcy", "quote_2": "Jane"} Hope it helps.', {1: "Darcy", 2: "Jane"}, "text before the JSON"),
        ('{"|1|": "Darcy"}', {1: "Darcy"}, None),
        ('[{"1": "Darcy"}, {"2": "Jane"}]', {1: "Darcy", 2: "Jane"}, None),
        ('{"1": {"speaker": "Darcy"}}', {1: "Darcy"}, None),
        ('1: "Darcy"\n2: "Jane"', {1: "Darcy", 2: "Jane"}, "not valid JSON; pairs read one by one"),
    ],
)
def test_parse_answer_reads_untidy_json(reply: str, expected: dict, problem: str | None) -> None:
    found, problems = parse_answer(reply)
    assert found == expected
    if problem:
        assert problem in problems
    else:
        assert problems == []


@pytest.mark.parametrize("reply", ["", "   ", "I am not sure who speaks here.", "Daisy = A\n\nA\n\nA", "{}", "[1, 2, 3]"])
def test_parse_answer_garbage_gives_nothing_and_never_raises(reply: str) -> None:
    found, problems = parse_answer(reply)
    assert found == {}
    assert problems


def test_alias_map_is_exact_up_to_case_and_spaces() -> None:
    aliases = AliasMap(CHARS)
    assert aliases.lookup("Darcy") == "1"
    assert aliases.lookup("  mr.   DARCY ") == "1"
    assert aliases.lookup("lizzy") == "0"
    # No fuzzy rescue: near misses, partial names and descriptions are wrong.
    for answer in ("Mr Darcy", "Darcey", "Elizabeth B.", "her sister", "Bennet", None, ""):
        assert aliases.lookup(answer) is None
    # An alias two characters share maps to neither.
    assert aliases.lookup("Miss Bennet") is None
    assert "miss bennet" in aliases.ambiguous


def _book(n_paragraphs: int) -> tuple[str, list[QuoteRef]]:
    parts, quotes = [], []
    pos = 0
    for i in range(n_paragraphs):
        narration = f"Paragraph {i} goes on about the weather and the roads near the town. "
        speech = f"I say this in paragraph {i}, and then some more words follow here."
        para = narration + '"' + speech + '"\n\n'
        start = pos + len(narration) + 1
        quotes.append(QuoteRef(f"q{i}", ((start, start + len(speech)),)))
        parts.append(para)
        pos += len(para)
    return "".join(parts), quotes


def test_plan_chunks_short_chapter_is_one_chunk() -> None:
    text, quotes = _book(5)
    chunks = plan_chunks(text, [(0, len(text))], quotes, words, chunk_tokens=4096, stride_tokens=1024)
    assert len(chunks) == 1
    assert chunks[0].quote_ids == tuple(q.id for q in quotes)
    assert chunks[0].tokens == sum(words(p) for p in text.split("\n\n") if p)


def test_plan_chunks_overlap_by_the_stride_and_never_cut_a_quotation() -> None:
    text, quotes = _book(60)  # 25 words a paragraph: 1500 words
    chunks = plan_chunks(text, [(0, len(text))], quotes, words, chunk_tokens=400, stride_tokens=100)
    assert len(chunks) > 3
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end  # consecutive chunks overlap...
        shared = words(text[b.start : a.end])
        assert 50 <= shared <= 100  # ...by about the stride, in whole paragraphs
    for c in chunks:
        assert c.tokens <= 400
        for qid in c.quote_ids:
            q = next(q for q in quotes if q.id == qid)
            assert c.start <= q.start and q.end <= c.end
    assert {qid for c in chunks for qid in c.quote_ids} == {q.id for q in quotes}


def test_plan_chunks_stay_within_chapters() -> None:
    text, quotes = _book(10)
    middle = text.index("Paragraph 5")
    chunks = plan_chunks(text, [(0, middle), (middle, len(text))], quotes, words)
    assert [(c.chapter, len(c.quote_ids)) for c in chunks] == [(0, 5), (1, 5)]


def test_marked_passage_tags_every_part_of_an_interrupted_quotation() -> None:
    text = 'He looked up. "Well," said Darcy, "I never." She laughed. "Nor I."'
    first = (text.index("Well"), text.index("Well") + 5)
    second = (text.index("I never"), text.index("I never") + 8)
    third = (text.index("Nor I"), text.index("Nor I") + 6)
    quotes = {"a": QuoteRef("a", (first, second)), "b": QuoteRef("b", (third,))}
    chunk = Chunk(0, 0, 0, len(text), 0, ("a", "b"))
    assert marked_passage(text, chunk, quotes) == (
        'He looked up. [Q1]"Well," said Darcy, [Q1]"I never." She laughed. [Q2]"Nor I."'
    )


def test_build_request_lists_aliases_and_earlier_answers() -> None:
    from litlens.attribution.llm_protocol import character_block

    conv = build_request("[Q1]\"Hi.\"", 1, character_block(CHARS), {1: "Mr. Darcy"})
    user = conv[-1]["content"]
    assert "- Mr. Darcy (also called: Darcy; Fitzwilliam Darcy)" in user
    assert '{"1": "Mr. Darcy"}' in user
    assert conv[0]["role"] == "system"
    # The cache key changes with the model and the request, not otherwise.
    assert request_key("m", conv, 50) == request_key("m", conv, 50)
    assert request_key("m", conv, 50) != request_key("other", conv, 50)


class ScriptedBackend:
    """A test double for protocol logic only: answers from a script, counts requests.

    The real models are exercised in test_llm_backends.py and test_llm_service.py; garbage
    answers must be reproducible, which a real small model's are not.
    """

    name = "scripted:test"
    context_window = 8192

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests: list[list[dict[str, str]]] = []

    def count_tokens(self, text: str) -> int:
        return words(text)

    def chat(self, conversations, *, max_new_tokens=256, temperature=0.0):
        out = []
        for conv in conversations:
            self.requests.append(conv)
            answer = self.answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            out.append(answer(conv) if callable(answer) else answer)
        return out


def test_run_protocol_retries_garbage_once_then_records_the_failure() -> None:
    text, quotes = _book(3)
    backend = ScriptedBackend(["no idea, sorry", "still not JSON"])
    cache = MemoryCache()
    result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache)
    assert len(backend.requests) == 2
    assert "could not read that reply" in backend.requests[1][-1]["content"]
    assert [c.status for c in result.chunks] == ["failed"]
    assert all(p.character_id is None for p in result.predictions.values())
    assert {r["status"] for r in cache.records.values()} == {"failed"}
    # A rerun reads both cached answers and asks nothing.
    again = ScriptedBackend([])
    run_protocol(again, text, [(0, len(text))], quotes, CHARS, cache=cache)
    assert again.requests == []


def test_run_protocol_names_not_on_the_list_are_wrong_not_rescued() -> None:
    text, quotes = _book(3)
    backend = ScriptedBackend(['{"1": "Darcy", "2": "Mr Darcey", "3": "the narrator"}'])
    result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS)
    p = result.predictions
    assert p["q0"].character_id == "1"
    assert p["q1"].character_id is None and p["q1"].answer == "Mr Darcey"
    assert p["q2"].character_id is None
    assert result.chunks[0].status == "partial"
    assert result.summary()["unmapped_answers"] == 2


def test_run_protocol_incremental_shows_and_revises_earlier_answers() -> None:
    text, quotes = _book(30)
    answers = ['{' + ", ".join(f'"{i}": "Jane"' for i in range(1, 40)) + '}',
               lambda conv: '{' + ", ".join(f'"{i}": "Darcy"' for i in range(1, 40)) + '}'] + [
        lambda conv: '{' + ", ".join(f'"{i}": "Darcy"' for i in range(1, 40)) + '}'] * 10
    backend = ScriptedBackend(answers)
    result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, chunk_tokens=300, stride_tokens=100)
    assert len(result.chunks) >= 2
    second = backend.requests[1][-1]["content"]
    assert "already given these speakers" in second and '"Jane Bennet"' in second
    shared = set(result.chunks[0].chunk.quote_ids) & set(result.chunks[1].chunk.quote_ids)
    assert shared
    for qid in shared:  # the later chunk revised them
        assert result.predictions[qid].character_id == "1"
        assert result.predictions[qid].confidence == 0.5


def test_run_protocol_without_characters_is_a_clear_error() -> None:
    text, quotes = _book(2)
    with pytest.raises(NoCharactersError, match="no characters"):
        run_protocol(ScriptedBackend([]), text, [(0, len(text))], quotes, [])


def test_run_protocol_backend_error_keeps_answers_already_cached() -> None:
    from litlens.errors import LLMServerError

    text, quotes = _book(30)
    good = '{"1": "Darcy"}'
    backend = ScriptedBackend([good, LLMServerError("server went away")])
    cache = MemoryCache()
    with pytest.raises(LLMServerError):
        run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache, chunk_tokens=300, stride_tokens=100, batch_size=1)
    assert len(cache.records) == 1
    resumed = ScriptedBackend([good] * 20)
    result = run_protocol(resumed, text, [(0, len(text))], quotes, CHARS, cache=cache, chunk_tokens=300, stride_tokens=100, batch_size=1)
    assert len(resumed.requests) == len(result.chunks) - 1


def test_run_protocol_cancel_raises_and_keeps_cache() -> None:
    text, quotes = _book(30)
    backend = ScriptedBackend(['{"1": "Darcy"}'] * 20)
    cache = MemoryCache()
    calls = {"n": 0}

    def cancelled() -> bool:
        calls["n"] += 1
        return calls["n"] > 1

    with pytest.raises(Cancelled):
        run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache, chunk_tokens=300, stride_tokens=100, batch_size=1, cancelled=cancelled)
    assert len(cache.records) == 1


def test_run_protocol_clamps_chunks_to_a_small_context_window() -> None:
    text, quotes = _book(60)
    backend = ScriptedBackend(['{"1": "Darcy"}'] * 50)
    backend.context_window = 1500
    result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, max_answer_tokens=256)
    assert result.chunk_tokens < 1500
    assert any("context window of 1500" in n for n in result.notes)
    assert all(c.chunk.tokens <= result.chunk_tokens for c in result.chunks)
