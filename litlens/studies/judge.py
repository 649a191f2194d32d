"""An LLM as one more Likert rater: absolute grading on the 1–5 rubric with a short
rationale (in the manner of Prometheus), and tolerant parsing of what comes back."""

from __future__ import annotations

import re

from litlens.studies.items import rubric

_SYSTEM = (
    "You grade answers to questions about a book against reference answers, using the rubric. "
    "Reply in this form: 'Score: N' (N is an integer from 1 to 5), then one short sentence saying why."
)


def build_prompt(data: dict, mode: str = "reference") -> list[dict[str, str]]:
    """A chat conversation asking for a 1–5 grade of ``data['answer']``."""
    scale = "\n".join(f"{k}: {v}" for k, v in rubric(mode).items())
    refs = "\n".join(f"- {r.strip()}" for r in data.get("references", []))
    parts = [f"Book: {data.get('title', '')}".strip()]
    if mode == "summary" and data.get("summary"):
        parts.append(f"Summary of the book:\n{data['summary']}")
    parts += [f"Question: {data['question']}", f"Reference answers:\n{refs}", f"Answer to grade: {data['answer']}",
              f"Rubric:\n{scale}",
              "On the rubric's scale of 1 (wrong) to 5 (correct), rate the answer. Answer with the number first, "
              "then one sentence of rationale."]
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


_SCORE = re.compile(r"(?:score|rating|grade)\s*(?:is|of|[:=])?\s*\**\s*\[?([1-5])\b", re.IGNORECASE)
_FRACTION = re.compile(r"\b([1-5])\s*(?:/|out of)\s*5\b", re.IGNORECASE)
_RESULT = re.compile(r"\[RESULT\]\s*([1-5])\b", re.IGNORECASE)
_LONE = re.compile(r"^\s*\**([1-5])\**\s*[.)]?\s*$", re.MULTILINE)
_LEADING = re.compile(r"^\s*\**([1-5])\**\s*(?:[.):\-]|$)")


def parse_rating(reply: str) -> tuple[int | None, str]:
    """(score, rationale) from a reply; score None when no grade 1–5 can be found.

    Accepts a reply that starts with the grade ('4. Because…'), else 'Score: 4', '[RESULT] 4',
    '4/5', '4 out of 5', or a line holding just the digit; among those the last mention wins
    (models often restate the scale before answering).
    """
    text = reply.strip()
    lead = _LEADING.match(text)
    if lead:  # "4. The answer names…" — the grade first, as the prompt asks
        return int(lead.group(1)), re.sub(r"\s+", " ", text[lead.end():]).strip()[:1000]
    for pattern in (_RESULT, _SCORE, _FRACTION, _LONE):
        hits = list(pattern.finditer(text))
        if hits:
            hit = hits[-1]
            rationale = (text[: hit.start()] + text[hit.end():]).strip(" \n:-*")
            return int(hit.group(1)), re.sub(r"\s+", " ", rationale)[:1000]
    return None, re.sub(r"\s+", " ", text)[:1000]
