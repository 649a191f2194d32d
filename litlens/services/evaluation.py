"""Evaluate the pipeline against PDNC gold annotations."""

from __future__ import annotations

from pathlib import Path

from litlens.errors import InputFileError
from litlens.model import Cancelled, Progress
from litlens.quotes.detect import detect_quotations
from litlens.quotes.evaluate import pool_scores, score_quotations
from litlens.quotes.pdnc import read_pdnc_quotations
from litlens.services.progress import check_cancelled, sub_progress
from litlens.text import build_structure
from litlens.text.ingest import read_book


def pdnc_novel_dirs(root: str | Path) -> list[Path]:
    """PDNC novel folders under ``root`` (or ``root`` itself when it is one), sorted by name."""
    root = Path(root)
    if not root.is_dir():
        raise InputFileError(root, "no such folder", "Pass the PDNC data folder (e.g. ../shared/data/pdnc)")
    if (root / "quotation_info.csv").is_file():
        return [root]
    dirs = sorted(d for d in root.iterdir() if (d / "quotation_info.csv").is_file() and (d / "novel_text.txt").is_file())
    if not dirs:
        raise InputFileError(
            root,
            "no PDNC novel folder found (each needs novel_text.txt and quotation_info.csv)",
            "Pass the PDNC data folder or one novel's folder",
        )
    return dirs


def evaluate_quotes(
    pdnc_root: str | Path,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    """Detect quotations in every PDNC novel under ``pdnc_root`` and score them against gold.

    Returns ``{"novels": {name: scores}, "pooled": scores}``.
    """
    dirs = pdnc_novel_dirs(pdnc_root)
    novels: dict[str, dict] = {}
    for i, novel_dir in enumerate(dirs):
        check_cancelled(cancelled, "evaluation")
        step = sub_progress(progress, i / len(dirs), (i + 1) / len(dirs))
        gold = read_pdnc_quotations(novel_dir / "quotation_info.csv")
        raw = read_book(novel_dir / "novel_text.txt")
        structure = build_structure(raw.text, progress=step, cancelled=cancelled)
        predicted = detect_quotations(raw.text, structure.paragraphs, structure.chapters, structure.persons)
        novels[novel_dir.name] = score_quotations(gold, predicted)
    return {"novels": novels, "pooled": pool_scores(list(novels.values()))}
