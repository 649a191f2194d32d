"""The per-chunk cache in a project: a SIGKILLed real run resumes; a re-run costs nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


from litlens.attribution.llm_protocol import CandidateCharacter, run_protocol
from litlens.llm import load_backend
from litlens.store.llm_cache import ProjectChunkCache, cache_rows, clear_cache
from litlens.store.project import open_project
from tests.llm.conftest import HAS_LLAMA_CPP, story

REPO = Path(__file__).resolve().parents[2]
CHARS = [
    CandidateCharacter("0", "Elizabeth Bennet", ("Elizabeth", "Lizzy")),
    CandidateCharacter("1", "Mr. Darcy", ("Darcy",)),
]
# The fast real backend when llama.cpp is installed, else the transformers one (slower).
KIND = "gguf" if HAS_LLAMA_CPP else "transformers"
RUN = dict(chunk_tokens=260, stride_tokens=60, batch_size=1, max_answer_tokens=48)

CHILD = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from litlens.attribution.llm_protocol import run_protocol
from litlens.llm import load_backend
from litlens.store.llm_cache import ProjectChunkCache
from litlens.store.project import open_project
from tests.llm.conftest import story
from tests.llm.test_llm_cache import CHARS, KIND, RUN
backend = load_backend(KIND)
text, quotes = story(48)
with open_project(sys.argv[1]) as project:
    print("started", flush=True)
    run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=ProjectChunkCache(project, source="kill-test"), **RUN)
print("finished", flush=True)
"""


def _rows(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]
    except sqlite3.OperationalError:  # table not created yet
        return 0
    finally:
        conn.close()


def test_killed_run_resumes_without_reasking_and_a_rerun_costs_nothing(tmp_path: Path, packaged_gguf: Path) -> None:
    project_path = tmp_path / "kill.litlens"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(project_path)], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    try:
        while _rows(project_path) < 2:
            assert child.poll() is None, child.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the child run answered nothing within 5 minutes"
            try:
                child.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                pass
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    assert b"finished" not in child.stdout.read()
    before = _rows(project_path)
    assert before >= 2

    backend = load_backend(KIND)
    text, quotes = story(48)
    with open_project(project_path) as project:
        cache = ProjectChunkCache(project, source="kill-test")
        result = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=cache, **RUN)
        assert len(result.chunks) > 2
        assert cache.hits >= before  # everything answered before the kill was reused...
        assert result.backend_requests == cache.writes == _rows(project_path) - before  # ...and not re-asked
        assert result.backend_requests > 0
        rows = cache_rows(project, source="kill-test")
        assert {r["model"] for r in rows} == {backend.name}
        assert all(r["request"] and r["raw_answer"] is not None and r["status"] for r in rows)

        # A re-run with the same model and prompt: zero backend calls, same predictions.
        requests_before = backend.stats.requests
        again = run_protocol(backend, text, [(0, len(text))], quotes, CHARS, cache=ProjectChunkCache(project), **RUN)
        assert again.backend_requests == 0 and backend.stats.requests == requests_before
        assert {k: p.character_id for k, p in again.predictions.items()} == {
            k: p.character_id for k, p in result.predictions.items()
        }
        assert clear_cache(project, model=backend.name) == len(rows)


def test_cache_survives_reopening_and_is_keyed_by_model(tmp_path: Path, smol) -> None:
    text, quotes = story(3)
    with open_project(tmp_path / "p.litlens") as project:
        first = run_protocol(smol, text, [(0, len(text))], quotes, CHARS, cache=ProjectChunkCache(project), max_answer_tokens=40)
        assert first.backend_requests >= 1
    with open_project(tmp_path / "p.litlens") as project:
        cache = ProjectChunkCache(project)
        second = run_protocol(smol, text, [(0, len(text))], quotes, CHARS, cache=cache, max_answer_tokens=40)
        assert second.backend_requests == 0 and cache.hits == first.backend_requests
        row = cache_rows(project)[0]
        assert row["prompt_version"] and row["chapter"] == 0 and row["chunk_index"] == 0
        assert "[Q1]" in row["request"] and "Mr. Darcy" in row["request"]
