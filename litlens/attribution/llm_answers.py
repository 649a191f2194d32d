"""A tolerant reader for an LLM's speaker answers (stage 3 of
:mod:`litlens.attribution.llm_protocol`).

The protocol asks for a JSON object ``{quote_number: speaker}``. Small local models wrap it
in code fences, add prose around it, leave trailing commas, use single quotes, nest it
in a list or stop mid-object when the token budget runs out. :func:`parse_answer` reads
all of these and says what it had to forgive; it never raises, so a garbled answer costs
one retry and at worst that chunk's quotations, never the run.
"""

from __future__ import annotations

import ast
import json
import re

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)(?:```|$)", re.S)
_PAIR = re.compile(
    r"""["'“]?\s*(?:\|)?(?:quote[_ ]?(?:id[_ ]?)?|Q)?\s*(\d+)\s*(?:\|)?\s*["'”]?\s*[:=]\s*"""
    r"""(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|“([^”\n]*)”|([A-Za-z][^,}\n]*))""",
    re.I,
)


def _key_number(key: object) -> int | None:
    m = re.fullmatch(r"\s*\|?\s*(?:quote[_ ]?(?:id[_ ]?)?|Q)?\s*(\d+)\s*\|?\s*", str(key), re.I)
    return int(m.group(1)) if m else None


def _from_mapping(obj: object) -> dict[int, str] | None:
    if isinstance(obj, list):  # [{"1": "A"}, {"2": "B"}] or [{"quote": 1, "speaker": "A"}]
        merged: dict[int, str] = {}
        for item in obj:
            if isinstance(item, dict):
                keys = {k.lower(): v for k, v in item.items() if isinstance(k, str)}
                num = keys.get("quote_id", keys.get("quote", keys.get("id")))
                spk = keys.get("speaker", keys.get("name"))
                if num is not None and isinstance(spk, str) and _key_number(num) is not None:
                    merged[_key_number(num)] = spk  # type: ignore[index]
                    continue
                sub = _from_mapping(item)
                if sub:
                    merged.update(sub)
        return merged or None
    if not isinstance(obj, dict):
        return None
    out: dict[int, str] = {}
    for k, v in obj.items():
        n = _key_number(k)
        if n is None:
            continue
        if isinstance(v, str):
            out[n] = v.strip()
        elif isinstance(v, dict):
            spk = v.get("speaker") or v.get("name")
            if isinstance(spk, str):
                out[n] = spk.strip()
    return out


def _closed(body: str) -> list[str]:
    """Ways to close a truncated object: as it is, and cut back to its last complete pair."""
    out = []
    cut = max(body.rfind(","), body.rfind("\n"))
    shortened = body[:cut] if cut > 0 else None
    # An odd number of double quotes: the last value was cut off mid-word, so drop it first.
    order = (shortened, body) if body.count('"') % 2 else (body, shortened)
    for cand in order:
        if cand is None:
            continue
        cand = cand.rstrip().rstrip(",")
        if cand.count('"') % 2:
            cand += '"'
        out.append(cand + "}" * max(1, cand.count("{") - cand.count("}")))
    return out


def parse_answer(text: str) -> tuple[dict[int, str], list[str]]:
    """Read ``{quote_number: speaker}`` from a model's reply, however untidy.

    Returns the pairs found and a list of problems noticed (empty when the reply was clean
    JSON). Never raises.
    """
    problems: list[str] = []
    if not text or not text.strip():
        return {}, ["empty answer"]
    body = text.strip()
    fence = _FENCE.search(body)
    if fence:
        body = fence.group(1).strip()
        problems.append("code fence")
    start = min([i for i in (body.find("{"), body.find("[")) if i >= 0], default=-1)
    if start > 0:
        problems.append("text before the JSON")
        body = body[start:]
    elif start < 0:
        problems.append("no JSON object")
    end = max(body.rfind("}"), body.rfind("]"))
    if 0 <= end < len(body) - 1 and start >= 0:
        trailing = body[end + 1 :].strip()
        if trailing:
            problems.append("text after the JSON")
        body = body[: end + 1]
    attempts: list[tuple[str, str | None]] = [(body, None)]
    no_trailing = re.sub(r",\s*([}\]])", r"\1", body)
    attempts.append((no_trailing, "trailing comma"))
    if body.startswith("{") and body.count("{") > body.count("}"):
        attempts.extend((c, "truncated object") for c in _closed(no_trailing))
    for loader, note in ((json.loads, None), (ast.literal_eval, "single quotes")):
        for candidate, problem in attempts:
            try:
                obj = loader(candidate)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            found = _from_mapping(obj)
            if found:
                extra = [p for p in (problem, note) if p]
                return found, problems + extra
    # Last resort: pull "n": "name" pairs out of whatever is there.
    pairs: dict[int, str] = {}
    for m in _PAIR.finditer(text):
        value = next(g for g in m.groups()[1:] if g is not None).strip().strip("\"'")
        if value:
            pairs.setdefault(int(m.group(1)), value)
    if pairs:
        return pairs, problems + ["not valid JSON; pairs read one by one"]
    return {}, problems + ["no quotation-speaker pairs found"]
