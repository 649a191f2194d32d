"""Likert items (seed 002, LiteraryQA): a question, its reference answers, a system's answer
and, in the summary-based mode, the book summary; rated 1–5 with the rubric.

LiteraryQA questions carry no ids; we name them ``<gutenberg_id>-<n>`` (n = the question's
0-based position in its book's ``qas`` list), e.g. ``32154-0``.

The answers file is CSV (header ``question_id,system,answer``; extra columns ignored) or
JSONL (one ``{"question_id": …, "system": …, "answer": …}`` per line).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from litlens.errors import DataFormatError, InputFileError
from litlens.studies.items import StudyItem
from litlens.text.datafile import read_data_text

LITERARYQA_FIX = "Pass a LiteraryQA split such as ../shared/data/literaryqa/test.jsonl: one book record a line"
ANSWERS_FIX = "Pass a CSV (question_id,system,answer) or JSONL file of system answers"


@dataclass(frozen=True)
class QAPair:
    question_id: str
    title: str
    question: str
    references: list[str]
    summary: str


@dataclass(frozen=True)
class SystemAnswer:
    line: int
    question_id: str
    system: str
    answer: str


def read_literaryqa(path: str | Path) -> dict[str, QAPair]:
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "no such LiteraryQA file", "Pass a LiteraryQA split such as ../shared/data/literaryqa/test.jsonl")
    out: dict[str, QAPair] = {}
    text = read_data_text(path, "LiteraryQA file", LITERARYQA_FIX)
    for line_no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            book = json.loads(line)
            if not isinstance(book, dict):
                raise TypeError(f"a JSON {type(book).__name__}, not an object")
            book_id = str(book.get("gutenberg_id") or book["document_id"])
            if not isinstance(book["qas"], list):
                raise TypeError("'qas' is not a list")
            for n, qa in enumerate(book["qas"]):
                if not isinstance(qa, dict) or not isinstance(qa["answers"], list):
                    raise TypeError(f"question {n} is not an object with a list of answers")
                qid = f"{book_id}-{n}"
                out[qid] = QAPair(qid, str(book.get("title", "")), str(qa["question"]), [str(a) for a in qa["answers"]],
                                  str(book.get("summary", "")))
        except (ValueError, KeyError, TypeError) as exc:
            raise DataFormatError(path, line_no, f"not a LiteraryQA book record ({exc.__class__.__name__}: {exc})",
                                  "Each line is a book with gutenberg_id, title, summary and qas") from exc
    if not out:
        raise DataFormatError(path, None, "no LiteraryQA questions in the file", LITERARYQA_FIX)
    return out


def read_answers(path: str | Path, questions: dict[str, QAPair] | None = None) -> list[SystemAnswer]:
    """System answers from CSV or JSONL, with line-numbered errors (unknown question, duplicates)."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "no such answers file", "Pass a CSV (question_id,system,answer) or JSONL file")
    records: list[tuple[int, dict]] = []
    text = read_data_text(path, "answers file", ANSWERS_FIX)
    if path.suffix.lower() in (".jsonl", ".json"):
        for line_no, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                try:
                    obj = json.loads(line)
                except ValueError as exc:
                    raise DataFormatError(path, line_no, f"not JSON ({exc})") from exc
                if not isinstance(obj, dict):
                    raise DataFormatError(path, line_no, "expected a JSON object")
                records.append((line_no, obj))
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            missing = [c for c in ("question_id", "system", "answer") if c not in (reader.fieldnames or [])]
            if missing:
                raise DataFormatError(path, 1, f"missing column(s) {', '.join(missing)}",
                                      "The header must be question_id,system,answer")
            for row in reader:
                records.append((reader.line_num, row))
        except csv.Error as exc:
            raise DataFormatError(path, reader.line_num, f"the row cannot be read as CSV ({exc})") from None
    answers: list[SystemAnswer] = []
    seen: dict[tuple[str, str], int] = {}
    for line_no, obj in records:
        qid, system, answer = (str(obj.get(k) or "").strip() for k in ("question_id", "system", "answer"))
        if not qid or not system or not answer:
            raise DataFormatError(path, line_no, "question_id, system and answer must all be non-empty")
        if questions is not None and qid not in questions:
            raise DataFormatError(path, line_no, f"unknown question {qid!r}",
                                  "Question ids are <gutenberg_id>-<n>, n counting the book's questions from 0")
        if (qid, system) in seen:
            raise DataFormatError(path, line_no, f"duplicate answer of {system!r} to {qid!r} (first on line {seen[qid, system]})")
        seen[qid, system] = line_no
        answers.append(SystemAnswer(line_no, qid, system, answer))
    if not answers:
        raise DataFormatError(path, None, "no answers in the file")
    return answers


def likert_items(questions: dict[str, QAPair], answers: list[SystemAnswer], mode: str = "reference") -> list[StudyItem]:
    if mode not in ("reference", "summary"):
        raise ValueError(f"mode must be reference or summary, not {mode!r}")
    items = []
    for a in answers:
        q = questions[a.question_id]
        data = {"question_id": q.question_id, "title": q.title, "question": q.question, "references": q.references,
                "system": a.system, "answer": a.answer, "mode": mode}
        if mode == "summary":
            data["summary"] = q.summary
        items.append(StudyItem(f"{a.question_id}|{a.system}", data))
    return items
