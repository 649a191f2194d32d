"""The layering rules of STYLE.md hold, and the core works without Qt installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_architecture_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    command = [str(lint)] if lint.exists() else [shutil.which("lint-imports") or "lint-imports"]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_architecture_ingest_works_with_qt_absent(tmp_path):
    novel = tmp_path / "tiny.txt"
    novel.write_text('CHAPTER I.\n\n"Is Qt needed?" asked Anne.\n\n"No," said Tom.\n', encoding="utf-8")
    code = textwrap.dedent(f"""
        import sys

        class BlockQt:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
                    raise ImportError(f"{{name}} is blocked in this test")
                return None

        sys.meta_path.insert(0, BlockQt())
        from litlens.services.books import ingest_file
        result = ingest_file({str(tmp_path / 'p.litlens')!r}, {str(novel)!r})
        assert result.book.quotations == 2, result.book
        assert not any(m.split(".")[0] in ("PySide6", "pyqtgraph") for m in sys.modules)
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_architecture_window_starts_without_the_heavy_model_libraries():
    # Start-up time is measured in benchmarks/bench_gui.py; this keeps its main cause away:
    # scikit-learn, scipy and torch take seconds to import and are needed only once the user
    # attributes speakers or searches, so the window's modules must not import them. pandas comes
    # in with the test extras (statsmodels) and sqlite-utils would import it on every start.
    code = textwrap.dedent("""
        import sys
        import litlens.gui.main_window, litlens.gui.speakers, litlens.gui.evidence, litlens.gui.annotate
        import litlens.services.attribution, litlens.services.retrieval, litlens.services.studies
        heavy = sorted({m.split(".")[0] for m in sys.modules} & {"sklearn", "scipy", "torch", "transformers", "bm25s", "pandas"})
        print(",".join(heavy) or "none")
        import pandas  # hidden only while sqlite-utils loaded, still importable by whoever needs it
    """)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "none"
