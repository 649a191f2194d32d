"""Listwise LLM re-ranking of the top candidates (seed 001, LitSearch), through litlens.llm.

The model sees the query and the numbered passages and answers with the numbers in order of
relevance ("3 > 1 > 2 ..."). Numbers it leaves out keep their first-stage order after the ones it
names; an answer with no usable number keeps the first-stage order. Off by default on CPU: the
packaged SmolLM2-135M is too small to help; use a larger model through ``--backend openai``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PROMPT = (
    "A literary critic wrote the analysis below; [MASK] marks where they quoted the novel.\n\n"
    "Analysis: {query}\n\n"
    "Candidate passages from the novel:\n{passages}\n\n"
    "Rank the passages from the most to the least likely to be the quotation at [MASK]. "
    "Answer only with their numbers separated by '>', for example: 2 > 1 > 3"
)


def parse_ranking(answer: str, n: int) -> list[int]:
    """0-based order from an answer like '3 > 1 > 2'; missing numbers follow in their old order."""
    seen: list[int] = []
    for token in re.findall(r"\d+", answer):
        i = int(token) - 1
        if 0 <= i < n and i not in seen:
            seen.append(i)
    return seen + [i for i in range(n) if i not in seen]


class ListwiseReranker:
    def __init__(self, backend, *, max_passage_chars: int = 400, max_new_tokens: int = 60) -> None:
        self.backend = backend
        self.max_passage_chars = max_passage_chars
        self.max_new_tokens = max_new_tokens

    @classmethod
    def default(cls, kind: str = "transformers", model: str | None = None, **options) -> ListwiseReranker:
        from litlens.llm import load_backend

        max_new_tokens = int(options.pop("max_new_tokens", 60))
        return cls(load_backend(kind, model, **options), max_new_tokens=max_new_tokens)

    def prompt(self, query: str, passages: Sequence[str]) -> str:
        listed = "\n".join(f"[{i + 1}] {p[: self.max_passage_chars]}" for i, p in enumerate(passages))
        return PROMPT.format(query=query, passages=listed)

    def rerank(self, query: str, passages: Sequence[str]) -> list[int]:
        if len(passages) < 2:
            return list(range(len(passages)))
        answer = self.backend.chat(
            [[{"role": "user", "content": self.prompt(query, passages)}]],
            max_new_tokens=self.max_new_tokens,
            temperature=0.0,
        )[0]
        return parse_ranking(answer, len(passages))
