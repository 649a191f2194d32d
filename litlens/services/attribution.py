"""Use cases of CPU speaker attribution: a stored book, PDNC evaluation, training.

``attribute_book`` runs the CPU attributor on a project's book and stores the answers
(human corrections and gold speakers are never overwritten; see
:mod:`litlens.store.attribution`). ``evaluate_attribution`` measures it on PDNC with
leave-novels-out folds (a novel is never scored by a model trained on it), and
``train_attributor`` fits the model shipped in ``resources/``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from litlens.attribution.context import build_context, character_index, normalise_alias
from litlens.attribution.cpu import METHOD, BookInput, CpuAttributor, load_model, predict_addressees, save_model
from litlens.attribution.evaluate import (
    Row,
    gold_key,
    gold_speaker_ids,
    map_discovered_to_gold,
    predictions_for_gold,
    attribution_rows,
    score_rows,
)
from litlens.attribution.ranker import PreparedBook, SpeakerRanker, prepare, train_ranker
from litlens.attribution.train_characters import CharacterBook, character_book, train_character_model
from litlens.errors import InputFileError, LitLensError
from litlens.model import Cancelled, Character, Progress, Quotation, Structure
from litlens.quotes.characters import discover_characters
from litlens.quotes.detect import detect_quotations
from litlens.quotes.learned import CharacterModel
from litlens.quotes.learned import default_model as default_character_model
from litlens.quotes.pdnc import read_pdnc_characters, read_pdnc_quotations
from litlens.resources import RESOURCES
from litlens.services.books import resolve_book
from litlens.services.editing import recount_characters
from litlens.services.evaluation import pdnc_novel_dirs
from litlens.services.progress import check_cancelled, sub_progress
from litlens.store.attribution import read_attributions, save_attributions
from litlens.store.project import Project, open_project
from litlens.text import build_structure
from litlens.text.chapters import find_chapters
from litlens.text.ingest import read_book
from litlens.text.paragraphs import find_paragraphs

DEFAULT_MODEL = RESOURCES / "attributor.zip"
DEFAULT_FOLDS = 5
# Fold models trained in this process, by (corpus folder, training novels): evaluating the
# same folds again (e.g. end to end after gold) reuses them.
_FOLD_MODELS: dict[tuple, SpeakerRanker] = {}


def default_model_path() -> Path:
    return DEFAULT_MODEL


def load_attributor(model_path: str | Path | None = None) -> CpuAttributor:
    path = Path(model_path) if model_path else DEFAULT_MODEL
    if not model_path and not path.is_file():
        raise InputFileError(
            path,
            "the bundled attributor model is missing",
            "Reinstall LitLens from its source folder, or train one with `litlens train attributor --pdnc DIR -o MODEL`",
        )
    return CpuAttributor(load_model(path))


# ---- a stored book -------------------------------------------------------------------


def book_input(project: Project, book_id: int) -> BookInput:
    """The attributor's view of a stored book: quotations and characters with their row ids."""
    structure = project.structure(book_id)
    record = project.book(book_id)
    return BookInput(
        text=project.text(book_id),
        paragraphs=structure.paragraphs,
        quotations=[(str(qid), q) for qid, q in project.quotations(book_id)],
        characters=[(str(cid), c) for cid, c in project.characters(book_id)],
        persons=None,  # as in training: cues are read from the text's capitalisation alone
        chapter_starts=[c.start for c in structure.chapters],
        name=record.title or Path(record.source_path).name,
    )


def attribute_book(
    project_path: str | Path,
    book_id: int | None = None,
    *,
    model_path: str | Path | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    """Attribute every quotation of a stored book on the CPU and store the answers.

    Nothing is written until the whole book is attributed, and then in one transaction:
    a cancelled or failed run leaves the stored attributions as they were.
    Returns a summary (quotations, attributed, shown, kept as corrected, seconds).
    """
    started = time.perf_counter()
    report = progress or (lambda f, m: None)
    report(0.0, "loading the attributor")
    attributor = load_attributor(model_path)
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        book = book_input(project, book_id)
        check_cancelled(cancelled, "speaker attribution")
        if not book.quotations:
            return {"book_id": book_id, "method": METHOD, "quotations": 0, "attributed": 0, "shown": 0, "kept": 0,
                    "low_confidence": 0, "seconds": round(time.perf_counter() - started, 2),
                    "notes": ["the book has no quotations to attribute"]}
        answers = attributor.attribute(book, progress=sub_progress(progress, 0.05, 0.9), cancelled=cancelled)
        check_cancelled(cancelled, "speaker attribution")
        report(0.92, "saving attributions")
        counts = save_attributions(project, book_id, answers, METHOD)
        with project.atomic() as conn:
            recount_characters(conn, project, book_id)
    report(1.0, "done")
    return {
        "book_id": book_id,
        "method": METHOD,
        "quotations": len(book.quotations),
        "attributed": sum(1 for a in answers if a.speaker is not None),
        "shown": counts["shown"],
        "kept": counts["kept"],
        "low_confidence": sum(1 for a in answers if a.speaker is not None and a.confidence < 0.5),
        "seconds": round(time.perf_counter() - started, 2),
    }


@dataclass(frozen=True)
class ReviewItem:
    """A quotation to review: its id, text excerpt, speaker, confidence and method."""

    quotation_id: int
    start: int
    end: int
    excerpt: str
    type: str
    speaker: str | None
    confidence: float | None
    method: str | None  # None: gold or a person's correction
    chapter: int | None


def review_items(project_path: str | Path, book_id: int | None = None) -> list[ReviewItem]:
    """The book's quotations, least confident first (corrected and gold ones last)."""
    with open_project(project_path, create=False) as project:
        book_id = resolve_book(project, book_id)
        return _review_items(project, book_id)


def _review_items(project: Project, book_id: int) -> list[ReviewItem]:
    text = project.text(book_id)
    methods = dict(project.conn.execute("SELECT id, speaker_method FROM quotations WHERE book_id = ?", (book_id,)).fetchall())
    from litlens.store.attribution import human_speaker_ids

    human = human_speaker_ids(project.conn, book_id)
    items = []
    for qid, q in project.quotations(book_id):
        method = None if qid in human else methods.get(qid)
        excerpt = " … ".join(" ".join(text[s:e].split()) for s, e in q.spans)
        items.append(ReviewItem(qid, q.start, q.end, excerpt[:300], q.type, q.speaker, q.speaker_confidence, method, q.chapter))

    def key(item: ReviewItem) -> tuple:
        if item.method is None:
            return (2, 0.0, item.start)
        return (0 if item.speaker is not None else 1, item.confidence or 0.0, item.start)

    return sorted(items, key=key)


def stored_attributions(project_path: str | Path, book_id: int | None = None, method: str | None = None) -> list:
    with open_project(project_path, create=False) as project:
        return read_attributions(project, resolve_book(project, book_id), method)


# ---- PDNC: preparing novels -----------------------------------------------------------


@dataclass
class Novel:
    """A PDNC novel ready for the attributor, in one (quotations, characters) setting."""

    name: str
    gold: list[Quotation]  # sorted by start
    gold_characters: list[Character]
    quotations: list[Quotation]  # gold or detected, sorted by start
    characters: list[Character]  # gold or discovered
    prepared: PreparedBook
    char_to_gold: list[int | None]  # characters[i] -> gold character index


def _structure(text: str, need_persons: bool) -> Structure:
    if need_persons:
        return build_structure(text)
    paragraphs = find_paragraphs(text)
    return Structure(chapters=find_chapters(text, paragraphs), paragraphs=paragraphs, sentences=[], persons=[])


def check_eval_inputs(quotes: str, characters: str) -> None:
    """Refuse an evaluation setting other than gold/detected quotations and gold/discovered characters."""
    if quotes not in ("gold", "detected"):
        raise LitLensError(f"--quotes must be gold or detected, not {quotes!r}")
    if characters not in ("gold", "discovered"):
        raise LitLensError(f"--characters must be gold or discovered, not {characters!r}")


def load_novel(novel_dir: Path, *, quotes: str = "gold", characters: str = "gold",
               character_model: CharacterModel | str | None = "default", structure: Structure | None = None,
               detected: list[Quotation] | None = None) -> Novel:
    """Read a PDNC novel and prepare it for attribution (spaCy runs only for detected/discovered).

    ``character_model`` is the learned step of discovery (see
    :func:`~litlens.quotes.characters.discover_characters`; a cross-validation passes the
    fold's model); ``structure`` an NLP pass of the text made earlier (else it is run), and
    ``detected`` the quotations detected on it, sorted (else they are detected again).
    """
    check_eval_inputs(quotes, characters)
    raw = read_book(novel_dir / "novel_text.txt")
    text = raw.text
    gold = sorted(read_pdnc_quotations(novel_dir / "quotation_info.csv"), key=lambda q: (q.start, q.end))
    gold_chars = read_pdnc_characters(novel_dir / "character_info.csv")
    need = quotes == "detected" or characters == "discovered"
    if structure is None or not need:
        structure = _structure(text, need)
    quotations = gold
    if quotes == "detected" and detected is not None:
        quotations = detected
    elif quotes == "detected":
        quotations = sorted(
            detect_quotations(text, structure.paragraphs, structure.chapters, structure.persons), key=lambda q: (q.start, q.end)
        )
    if characters == "gold":
        chars = gold_chars
        char_to_gold: list[int | None] = list(range(len(gold_chars)))
    else:
        chars = discover_characters(text, structure.persons, quotations, model=character_model)
        char_to_gold = map_discovered_to_gold(chars, gold_chars)
    context = build_context(text, structure.paragraphs, quotations, chars, None, [c.start for c in structure.chapters])
    labels: list[int | None] = []
    if quotes == "gold" and characters == "gold":
        labels = gold_speaker_ids(gold, gold_chars)
    return Novel(novel_dir.name, gold, gold_chars, quotations, chars, prepare(novel_dir.name, context, labels), char_to_gold)


def select_novels(dirs: list[Path], novels: str | Sequence[str] | None) -> list[Path]:
    if not novels:
        return dirs
    wanted = [n.strip() for n in (novels.split(",") if isinstance(novels, str) else novels) if n.strip()]
    by_name = {d.name.lower(): d for d in dirs}
    missing = [n for n in wanted if n.lower() not in by_name]
    if missing:
        raise InputFileError(dirs[0].parent, f"no PDNC novel named {', '.join(missing)}", "Choose among: " + ", ".join(d.name for d in dirs))
    return [by_name[n.lower()] for n in wanted]


def _training_set(novels: Sequence[Novel]) -> list[PreparedBook]:
    return [n.prepared for n in novels]


# ---- training -------------------------------------------------------------------------


def train_attributor(
    pdnc_dir: str | Path,
    out_path: str | Path,
    *,
    novels: str | Sequence[str] | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> dict:
    """Train the CPU attributor on PDNC novels (gold quotations and characters) and save it."""
    started = time.perf_counter()
    out_path = Path(out_path)
    if not out_path.parent.exists():
        raise InputFileError(out_path, f"the folder {out_path.parent} does not exist", "Create it first or choose another path")
    dirs = select_novels(pdnc_novel_dirs(pdnc_dir), novels)
    if len(dirs) < 2:
        raise LitLensError("training the attributor needs at least two PDNC novels")
    loaded = []
    for i, d in enumerate(dirs):
        check_cancelled(cancelled, "training")
        if progress:
            progress(0.3 * i / len(dirs), f"reading {d.name}")
        loaded.append(load_novel(d))
    ranker = train_ranker(_training_set(loaded), progress=sub_progress(progress, 0.3, 0.98), cancelled=cancelled)
    ranker.meta.update({"quotations": "gold", "characters": "gold"})
    tmp = out_path.with_name(out_path.name + ".tmp")
    save_model(ranker, tmp)
    tmp.replace(out_path)
    if progress:
        progress(1.0, "saved")
    return {"model": str(out_path), "trained_on": ranker.trained_on, "seconds": round(time.perf_counter() - started, 1)}


# ---- evaluation -----------------------------------------------------------------------


@dataclass
class NovelResult:
    rows: list[Row]
    confidences: list[tuple[float, bool]]  # (confidence, correct) of scored quotations
    addressee_hits: list[bool]  # per scored quotation with gold addressees: first predicted addressee is one of them
    speakers: list[int | None]  # the answer per quotation of the novel, an index into its characters


def score_novel(novel: Novel, ranker: SpeakerRanker) -> NovelResult:
    """Predict with ``ranker`` and score against the gold (seed 003 convention)."""
    predictions = ranker.predict(novel.prepared)
    speakers = [best for best, _ in predictions]
    addressees = predict_addressees(novel.prepared.context, speakers)
    names = [c.name for c in novel.gold_characters]

    def gold_name(ci: int | None) -> str | None:
        g = novel.char_to_gold[ci] if ci is not None else None
        return names[g] if g is not None else None

    answers = [gold_name(s) for s in speakers]
    confs = [c for _, c in predictions]
    addr_answers = [[gold_name(a) for a in addr] for addr in addressees]
    if novel.quotations is novel.gold:
        predicted = {gold_key(q, i): a for i, (q, a) in enumerate(zip(novel.gold, answers))}
        conf_of = {gold_key(q, i): c for i, (q, c) in enumerate(zip(novel.gold, confs))}
        addr_of = {gold_key(q, i): a for i, (q, a) in enumerate(zip(novel.gold, addr_answers))}
    else:
        predicted = predictions_for_gold(novel.gold, novel.quotations, answers)
        conf_of = {k: 0.0 for k in predicted}
        conf_of.update(predictions_for_gold(novel.gold, novel.quotations, confs))  # type: ignore[arg-type]
        addr_of = predictions_for_gold(novel.gold, novel.quotations, addr_answers)  # type: ignore[arg-type]
    rows = attribution_rows(novel.gold, predicted, novel.gold_characters)
    # Confidence and addressee figures over the same scored quotations.
    speakers_gold = gold_speaker_ids(novel.gold, novel.gold_characters)
    index = character_index(novel.gold_characters)
    counts = Counter(s for s in speakers_gold if s is not None)
    confidences, hits = [], []
    k = 0
    for i, (q, sid) in enumerate(zip(novel.gold, speakers_gold)):
        if sid is None or counts[sid] < 10:
            continue
        key = gold_key(q, i)
        confidences.append((float(conf_of.get(key) or 0.0), rows[k][1]))
        k += 1
        if q.addressees:
            gold_addr = {index.get(normalise_alias(a)) for a in q.addressees} - {None}
            mine = addr_of.get(key) or []
            first = index.get(normalise_alias(mine[0])) if mine and mine[0] else None
            hits.append(first is not None and first in gold_addr)
    return NovelResult(rows, confidences, hits, speakers)


def reliability(confidences: Sequence[tuple[float, bool]], bins: int = 10) -> list[dict]:
    """Accuracy per confidence decile (equal-width bins over [0, 1])."""
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        sel = [ok for c, ok in confidences if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        mean = [c for c, _ in confidences if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        out.append({"bin": f"{lo:.1f}-{hi:.1f}", "quotations": len(sel),
                    "accuracy": round(sum(sel) / len(sel), 4) if sel else None,
                    "mean_confidence": round(sum(mean) / len(mean), 4) if mean else None})
    return out


class _FoldDiscovery:
    """The learned character steps of each fold of an end-to-end evaluation, trained on that
    fold's training novels only (the shipped model saw every PDNC novel), at the thresholds
    the shipped model's cross-validation chose. Each novel's NLP pass and detected
    quotations are made once and shared by the folds."""

    def __init__(self) -> None:
        self._passes: dict[Path, tuple[str, Structure, list[Quotation]]] = {}
        self._books: dict[Path, CharacterBook] = {}
        self._models: dict[tuple[str, ...], CharacterModel | None] = {}

    def structure(self, novel_dir: Path) -> tuple[str, Structure, list[Quotation]]:
        if novel_dir not in self._passes:
            text = read_book(novel_dir / "novel_text.txt").text
            structure = build_structure(text)
            detected = sorted(detect_quotations(text, structure.paragraphs, structure.chapters, structure.persons),
                              key=lambda q: (q.start, q.end))
            self._passes[novel_dir] = (text, structure, detected)
        return self._passes[novel_dir]

    def model(self, train_dirs: Sequence[Path], cancelled: Cancelled | None = None) -> CharacterModel | None:
        key = tuple(str(d) for d in train_dirs)
        if key not in self._models:
            shipped = default_character_model()
            if shipped is None or shipped.same_person is None:
                self._models[key] = None  # no shipped model: the name rules alone, as the product
                return None
            for d in train_dirs:
                check_cancelled(cancelled, "evaluation")
                if d not in self._books:
                    text, structure, detected = self.structure(d)
                    self._books[d] = character_book(d.name, text, structure.persons, detected,
                                                    read_pdnc_characters(d / "character_info.csv"))
            same = shipped.same_person
            person = shipped.person.threshold if shipped.person is not None else None
            self._models[key] = train_character_model([self._books[d] for d in train_dirs], same.threshold,
                                                      same.floor, person)
        return self._models[key]

    def trained_on(self) -> list[list[str] | None]:
        """Per fold, the novels its character steps were trained on (None: the name rules alone)."""
        return [[Path(d).name for d in key] if model is not None else None for key, model in self._models.items()]


def evaluate_attribution(
    pdnc_dir: str | Path,
    *,
    quotes: str = "gold",
    characters: str = "gold",
    folds: int = DEFAULT_FOLDS,
    novels: str | Sequence[str] | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    details: bool = False,
) -> dict:
    """Leave-novels-out evaluation of the CPU attributor on PDNC.

    Without ``novels``: the novels are split into ``folds`` folds (novel i in fold
    i mod K, by name order); each fold is scored by a model trained on the other folds
    (gold quotations and characters). With ``novels``: those are scored by a model
    trained on all the other novels under ``pdnc_dir``. With ``characters="discovered"``
    the learned character steps are trained the same way, per fold on its training novels
    (at the thresholds of the shipped model), so no scored novel is in either model. Returns
    ``{"novels": {NAME: scores}, "pooled": scores}``; with ``details`` also
    ``"reliability"`` (accuracy per confidence decile), ``"addressees"`` and timings.
    """
    started = time.perf_counter()
    all_dirs = pdnc_novel_dirs(pdnc_dir)
    scored_dirs = select_novels(all_dirs, novels)
    if novels:
        train_dirs = [d for d in all_dirs if d not in scored_dirs]
        plan = [(scored_dirs, train_dirs)]
    else:
        k = max(2, min(folds, len(all_dirs)))
        groups = [[d for i, d in enumerate(all_dirs) if i % k == f] for f in range(k)]
        plan = [(g, [d for d in all_dirs if d not in g]) for g in groups if g]
    if any(len(train) < 2 for _, train in plan):
        raise LitLensError("leave-novels-out evaluation needs at least two other PDNC novels to train on; pass a folder with more novels")
    report = progress or (lambda f, m: None)
    train_cache: dict[str, Novel] = {}
    discovery = _FoldDiscovery() if characters == "discovered" else None
    per_novel: dict[str, dict] = {}
    rows_all: list[Row] = []
    confidences: list[tuple[float, bool]] = []
    addr_hits: list[bool] = []
    timings: dict[str, float] = {}
    for pi, (test_dirs, train_dirs) in enumerate(plan):
        check_cancelled(cancelled, "evaluation")
        lo, hi = pi / len(plan), (pi + 1) / len(plan)
        for j, d in enumerate(train_dirs):
            if d.name not in train_cache:
                report(lo + (hi - lo) * 0.3 * j / len(train_dirs), f"reading {d.name}")
                train_cache[d.name] = load_novel(d)
            check_cancelled(cancelled, "evaluation")
        report(lo + (hi - lo) * 0.3, f"training fold {pi + 1} of {len(plan)}")
        key = (str(Path(pdnc_dir).resolve()), tuple(d.name for d in train_dirs))
        ranker = _FOLD_MODELS.get(key)
        if ranker is None:
            ranker = train_ranker(_training_set([train_cache[d.name] for d in train_dirs]), cancelled=cancelled,
                                  progress=sub_progress(progress, lo + (hi - lo) * 0.3, lo + (hi - lo) * 0.8))
            _FOLD_MODELS[key] = ranker
        character_model: CharacterModel | str | None = "default"
        if discovery is not None:
            report(lo + (hi - lo) * 0.8, f"training the character steps of fold {pi + 1}")
            character_model = discovery.model(train_dirs, cancelled)
        for d in test_dirs:
            check_cancelled(cancelled, "evaluation")
            report(lo + (hi - lo) * 0.85, f"scoring {d.name}")
            t0 = time.perf_counter()
            if quotes == "gold" and characters == "gold" and d.name in train_cache:
                novel = train_cache[d.name]
            else:
                _, structure, detected = discovery.structure(d) if discovery is not None else (None, None, None)
                novel = load_novel(d, quotes=quotes, characters=characters, character_model=character_model,
                                   structure=structure, detected=detected)
            result = score_novel(novel, ranker)
            timings[d.name] = round(time.perf_counter() - t0, 2)
            per_novel[d.name] = score_rows(result.rows)
            rows_all.extend(result.rows)
            confidences.extend(result.confidences)
            addr_hits.extend(result.addressee_hits)
    out: dict = {"novels": dict(sorted(per_novel.items())), "pooled": score_rows(rows_all)}
    if details:
        out["reliability"] = reliability(confidences)
        out["addressees"] = {"accuracy": round(sum(addr_hits) / len(addr_hits), 4) if addr_hits else None,
                             "quotations": len(addr_hits),
                             "rule": "first predicted addressee is one of the gold addressees"}
        if discovery is not None:  # which novels each fold's character steps learned from
            out["character_models"] = discovery.trained_on()
        out["seconds"] = round(time.perf_counter() - started, 1)
        out["scoring_seconds"] = timings
    report(1.0, "evaluation done")
    return out
