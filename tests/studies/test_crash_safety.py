"""Crash safety and concurrent writers: SIGKILL mid-burst loses nothing acknowledged."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from litlens.store.project import open_project
from litlens.store.studies import StudyStore

# Records judgments as fast as it can and prints one line per judgment after its commit returned.
WORKER = """
import sys
from litlens.services.studies import AnnotationSession
project, annotator, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = AnnotationSession.open(project, "proxy", annotator)
print("READY", flush=True)
n = 0
while count <= 0 or n < count:
    event = session.answer(n % len(session.queue), 1 + n % 3, duration_ms=n)
    print("ACK", event.uid, flush=True)
    n += 1
session.close()
print("DONE", flush=True)
"""


def _worker(project, annotator: str, count: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.Popen([sys.executable, "-c", WORKER, str(project), annotator, str(count)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _stored_uids(project) -> set[str]:
    with open_project(project) as p:
        return {r[0] for r in p.conn.execute("SELECT uid FROM study_judgments")}


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
def test_sigkill_mid_burst_loses_no_acknowledged_judgment(proxy_project):
    proc = _worker(proxy_project, "A", 0)  # runs until killed
    acked: list[str] = []
    assert proc.stdout.readline().strip() == "READY", proc.stderr.read()
    while len(acked) < 150:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        acked.append(line.split()[1])
    os.kill(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    acked += [line.split()[1] for line in rest.splitlines() if line.startswith("ACK ")]
    assert proc.returncode == -signal.SIGKILL
    stored = _stored_uids(proxy_project)
    assert set(acked) <= stored, f"lost {len(set(acked) - stored)} acknowledged judgments"
    assert len(stored) - len(acked) <= 1  # at most the one in flight when the signal landed
    conn = sqlite3.connect(proxy_project)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_two_processes_annotating_the_same_file(proxy_project):
    procs = [_worker(proxy_project, name, 150) for name in ("A", "B")]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
        assert out.splitlines()[-1] == "DONE"
    with open_project(proxy_project) as project:
        store = StudyStore(project)
        events = store.events(store.study("proxy").id)
    assert len(events) == 300
    assert {e.annotator for e in events} == {"A", "B"}
    ids = [e.id for e in events]
    assert ids == sorted(set(ids))
