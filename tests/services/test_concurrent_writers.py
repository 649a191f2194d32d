"""Writers in separate processes share one project file and none of them starves.

Two annotators record Likert judgments (AnnotationSession), two correctors set quotation
speakers and one pinner pins evidence, all at once on a project holding the sample novel
(a speaker correction used to count every mention in the whole text while it held the
write lock: 0.4-0.7 s, and the others gave up with "the project is locked"). Afterwards no
process met a lock error and every write it was told had landed is in the file.
"""

from __future__ import annotations

import multiprocessing as mp
import re
import time
import traceback
from pathlib import Path

import pytest

from litlens.errors import ProjectLockedError
from litlens.model import EntityMention, Structure
from litlens.quotes.characters import discover_characters
from litlens.quotes.detect import detect_quotations
from litlens.resources import sample_novel
from litlens.services.pipeline import count_words, text_sha256
from litlens.store.project import open_project
from litlens.text.chapters import assign_chapters, find_chapters
from litlens.text.ingest import read_book
from litlens.text.paragraphs import find_paragraphs
from tests.studies.conftest import ANSWERS, LQA_MINI

# Stand-in for spaCy's PERSON mentions (the test needs the characters, not the model).
_NAMES = re.compile(r"\b(?:Elizabeth|Darcy|Jane|Bingley|Wickham|Lydia|Collins|Bennet|Charlotte|Catherine|Kitty|Mary)\b")


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_project(tmp_path_factory.mktemp("writers") / "sample.litlens")


def build_sample_project(path: Path) -> Path:
    """The sample novel stored with its quotations and characters, plus a Likert study for A and B."""
    from litlens.services.studies import assign, create_likert_study

    raw = read_book(sample_novel())
    text = raw.text
    paragraphs = find_paragraphs(text)
    chapters = find_chapters(text, paragraphs)
    paragraphs = assign_chapters(paragraphs, chapters)
    persons = [EntityMention(m.start(), m.end(), m.group(), "PERSON") for m in _NAMES.finditer(text)]
    quotations = detect_quotations(text, paragraphs, chapters, persons)
    characters = discover_characters(text, persons, quotations)
    with open_project(path) as project:
        project.add_book(
            raw, Structure(chapters, paragraphs, [], persons), quotations, characters,
            sha256=text_sha256(text), word_count=count_words(text), pipeline_version="test",
        )
    create_likert_study(path, literaryqa=LQA_MINI, answers=ANSWERS, mode="reference", name="likert")
    assign(path, "likert", ["A", "B"], overlap=2)
    return path


# -------------------------------------------------------------- the writers (run in children)


class _Tally:
    """Operations a writer was told succeeded, the lock errors it met, the slowest operation."""

    def __init__(self) -> None:
        self.ops = 0
        self.lock_errors = 0
        self.slowest = 0.0

    def attempt(self, operation):
        started = time.perf_counter()
        try:
            result = operation()
        except ProjectLockedError:
            self.lock_errors += 1
            return None
        finally:
            self.slowest = max(self.slowest, time.perf_counter() - started)
        self.ops += 1
        return result

    def report(self, acked) -> dict:
        return {"ops": self.ops, "lock_errors": self.lock_errors, "slowest_s": round(self.slowest, 3), "acked": acked}


def _annotator(project: Path, name: str, start) -> dict:
    from litlens.services.studies import AnnotationSession

    session = AnnotationSession.open(project, "likert", name)
    tally, acked = _Tally(), []
    try:
        until = start()
        k = 0
        while time.time() < until:
            value = session.study.scale[k % len(session.study.scale)]
            event = tally.attempt(lambda: session.answer(k % len(session.queue), value))
            if event is not None:
                acked.append(event.uid)
            k += 1
    finally:
        session.close()
    return tally.report(acked)


def _corrector(project: Path, which: int, start) -> dict:
    from litlens.services.editing import set_quotation_speaker

    tally, acked = _Tally(), {}
    with open_project(project, create=False) as p:
        book = p.books()[0].id
        names = [c.name for _, c in p.characters(book)][:5]
        ids = [r[0] for r in p.conn.execute("SELECT id FROM quotations WHERE book_id = ? ORDER BY id", (book,))]
        mine = ids[which::2]  # the two correctors never touch the same quotation
        until = start()
        k = 0
        while time.time() < until:
            qid, speaker = mine[k % len(mine)], names[(k + which) % len(names)]
            if tally.attempt(lambda: set_quotation_speaker(p, qid, speaker)) is not None:
                acked[qid] = speaker
            k += 1
    return tally.report(acked)


def _pinner(project: Path, start) -> dict:
    from litlens.services.retrieval import pin_evidence

    tally, acked = _Tally(), []
    until = start()
    k = 0
    while time.time() < until:
        evidence_id = tally.attempt(lambda: pin_evidence(project, "first impressions", 1000 + 50 * k, 1040 + 50 * k))
        if evidence_id is not None:
            acked.append(evidence_id)
        k += 1
    return tally.report(acked)


def _child(role: str, args: tuple, barrier, seconds: float, out: mp.Queue) -> None:
    """Run one writer for ``seconds`` once every writer is ready; report what it did (or its traceback)."""
    worker = {"annotator": _annotator, "corrector": _corrector, "pinner": _pinner}[role]
    result: dict = {"role": role, "args": args, "failure": None}

    def start() -> float:
        """Wait for the other writers (imports and set-up take a while under load); the deadline."""
        barrier.wait(timeout=120)
        return time.time() + seconds

    try:
        result.update(worker(*args, start))
    except Exception:  # noqa: BLE001 - reported to the parent, which fails the test with it
        result["failure"] = traceback.format_exc()
    out.put(result)


def run_writers(project: Path, seconds: float) -> list[dict]:
    """2 annotators, 2 correctors and 1 pinner on ``project`` for ``seconds``, each in its own process."""
    ctx = mp.get_context("spawn")
    out: mp.Queue = ctx.Queue()
    plan = [("annotator", (project, "A")), ("annotator", (project, "B")), ("corrector", (project, 0)),
            ("corrector", (project, 1)), ("pinner", (project,))]
    barrier = ctx.Barrier(len(plan))
    procs = [ctx.Process(target=_child, args=(role, args, barrier, seconds, out)) for role, args in plan]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=seconds + 180) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    return results


def _check(project: Path, results: list[dict]) -> None:
    failures = [f"{r['role']} {r['args'][1:]}: {r['failure']}" for r in results if r["failure"]]
    assert not failures, "\n".join(failures)
    figures = [(r["role"], r["ops"], r["lock_errors"], r["slowest_s"]) for r in results]
    assert sum(r["lock_errors"] for r in results) == 0, f"(role, operations, lock errors, slowest s): {figures}"
    with open_project(project, create=False) as p:
        uids = {row[0] for row in p.conn.execute("SELECT uid FROM study_judgments")}
        speakers = dict(p.conn.execute("SELECT id, speaker FROM quotations"))
        pinned = {row[0] for row in p.conn.execute("SELECT id FROM evidence")}
    for r in results:
        if r["role"] == "annotator":
            assert r["acked"] and set(r["acked"]) <= uids
        elif r["role"] == "corrector":
            assert r["acked"] and all(speakers[qid] == speaker for qid, speaker in r["acked"].items())
        else:
            assert r["acked"] and set(r["acked"]) <= pinned


def test_writers_share_the_project_without_lock_errors(sample_project: Path) -> None:
    _check(sample_project, run_writers(sample_project, 8.0))


@pytest.mark.slow
def test_writers_share_the_project_for_30_seconds(sample_project: Path) -> None:
    _check(sample_project, run_writers(sample_project, 30.0))


if __name__ == "__main__":
    # The figures for a report: python -m tests.services.test_concurrent_writers [SECONDS]
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        project = build_sample_project(Path(tmp) / "sample.litlens")
        results = run_writers(project, float(sys.argv[1]) if len(sys.argv) > 1 else 30.0)
        for r in results:
            print(f"{r['role']:10s} {str(r['args'][1:]):8s} ops {r.get('ops', 0):5d}  lock errors {r.get('lock_errors', 0):3d}  "
                  f"slowest {r.get('slowest_s', 0):.3f} s  {'FAILED ' + r['failure'] if r['failure'] else ''}")
        _check(project, results)
        print("every acknowledged write is in the project")
