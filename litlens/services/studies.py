"""Annotation-study use cases shared by the CLI and the GUI: create, assign, annotate,
agreement, export, QA-metric meta-evaluation and the LLM judge (merging other annotators'
files: :mod:`litlens.services.study_merge`)."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from litlens.errors import LitLensError
from litlens.model import Cancelled, Progress
from litlens.services.csv_cells import safe_row
from litlens.services.progress import check_cancelled, sub_progress
from litlens.store.project import Project, open_project
from litlens.store.studies import (
    ItemRecord,
    JudgmentEvent,
    StudyError,
    StudyRecord,
    StudyStore,
    effective_judgments,
)
from litlens.studies import agreement as ag
from litlens.studies.items import LIKERT, PROXY, ItemBuild, SkippedItem, StudyItem, rubric, scale_for
from litlens.studies.judgments import parse_scale, read_judgments_csv
from litlens.studies.likert import likert_items, read_answers, read_literaryqa
from litlens.studies.overlap import first_compatible, options_overlap
from litlens.studies.proxy import proxy_items_from_beir, too_few_distractors

EXPORT_COLUMNS = ["study", "item_id", "annotator", "label", "gold_position", "correct", "options_shown",
                  "option_texts", "created_at", "duration_ms", "note", "judgment_uid", "origin"]


def _open(project_path: str | Path) -> tuple[Project, StudyStore]:
    project = open_project(project_path)
    return project, StudyStore(project)


# ---------------------------------------------------------------- creation
def create_proxy_study(
    project_path: str | Path, *, beir: str | Path | None = None, pinned: list[str] | None = None,
    distractors: str = "bm25", per_item: int = 3, name: str | None = None, seed: int = 0,
    limit: int | None = None, progress: Progress | None = None, book_id: int | None = None,
) -> StudyRecord:
    """A proxy-task study: gold + (per_item − 1) strongest distractors per query, shuffled once.

    Options of an item share no text (``litlens.studies.overlap``); an item that cannot get
    enough such distractors is left out and listed in the study's ``settings["skipped"]``.
    When no item at all can be built, nothing is stored and a :class:`StudyError` says why.
    """
    if pinned:
        build = _pinned_items(project_path, pinned, distractors=distractors, per_item=per_item, seed=seed,
                              book_id=book_id)
        source = "pinned evidence: " + "; ".join(pinned)
        name = name or f"proxy-pinned-{len(build.items)}"
    elif beir is None:
        raise LitLensError("give the source of the items: --beir DIR (queries.jsonl, corpus.jsonl, qrels/test.tsv) "
                           "or --pinned CLAIM…")
    else:
        build = proxy_items_from_beir(beir, distractors=distractors, per_item=per_item, seed=seed, limit=limit,
                                      progress=sub_progress(progress, 0.0, 0.95))
        source = str(beir)
        name = name or f"proxy-{Path(beir).name}"
    if not build.items:
        first = build.skipped[0] if build.skipped else None
        why = f"; e.g. {first.key}: {first.reason}" if first else ""
        raise StudyError(f"no proxy item could be built from {source} ({len(build.skipped)} skipped{why}); "
                         "use a larger candidate pool or a smaller --per-item")
    with open_project(project_path) as project:
        store = StudyStore(project)
        sid = store.create_study(
            name, PROXY, build.items, scale=scale_for(PROXY, per_item), mode=distractors,
            instructions="Which candidate is the quotation hidden at [masked sentence(s)]? Press its number.",
            source=source, settings={"per_item": per_item, "seed": seed, "distractors": distractors,
                                     "skipped": [s.as_json() for s in build.skipped]},
        )
        if progress:
            progress(1.0, "stored")
        return store.study(sid)


def _pinned_items(project_path: str | Path, claims: list[str], *, distractors: str, per_item: int, seed: int,
                  book_id: int | None) -> ItemBuild:
    """One item per pinned passage: the claim as the task, the passage as gold, and the best-ranked
    passages for the claim (BM25 or dense, from evidence retrieval) that overlap neither the gold
    nor each other, by character range or by text (a shared sentence or run of 8 words)."""
    import random

    from litlens.services.retrieval import list_evidence, search
    from litlens.studies.items import Option

    if distractors not in ("bm25", "dense"):
        raise LitLensError(f"--distractors must be bm25 or dense, not {distractors!r}")
    build = ItemBuild()
    wanted = per_item - 1
    from litlens.services.books import resolve_book

    book_title = ""  # the annotator view names the novel
    if Path(project_path).exists():  # (a missing project has no pinned evidence: list_evidence says so)
        with open_project(project_path, create=False) as project:
            book_title = project.book(resolve_book(project, book_id)).title or ""
    for claim in claims:
        rows = list_evidence(project_path, book_id=book_id, claim=claim)
        if not rows:
            raise StudyError(f"no evidence is pinned for claim {claim!r}; pin passages with `litlens evidence pin`")
        for row in rows:
            key = f"{claim}#{row['id']}"
            query = row["query"] or row["claim_text"] or claim
            hits = search(project_path, query, book_id=book_id, method=distractors, k=10 * per_item)
            gold_range = (row["start"], row["end"])

            def clashes(hit, kept_hits, gold_range=gold_range) -> bool:  # shares characters of the book
                return any(hit.start < end and start < hit.end
                           for start, end in [gold_range] + [(k.start, k.end) for k in kept_hits])

            kept = first_compatible([row["text"]], ((h, " ".join(h.text.split())) for h in hits), wanted,
                                    also_clashes=clashes)
            if len(kept) < wanted:
                build.skipped.append(SkippedItem(key, too_few_distractors(
                    len(kept), wanted, f"{len(hits)} book passages ranked for the claim", also="no characters, ")))
                continue
            options = [Option(row["text"], f"{row['start']}-{row['end']}", True)] + [
                Option(" ".join(h.text.split()), f"{h.start}-{h.end}", False) for h in kept]
            random.Random(f"{seed}:{key}").shuffle(options)
            context = row["claim_text"] or claim
            build.items.append(StudyItem(key, {"context": f"{context}\n\n[masked sentence(s)]", "claim": claim,
                                               "query": query, "distractors": distractors, "book": book_title,
                                               "distractor_scores": [round(float(h.score), 4) for h in kept]},
                                         options))
    return build


def create_likert_study(
    project_path: str | Path, *, literaryqa: str | Path, answers: str | Path, mode: str = "reference",
    name: str | None = None,
) -> StudyRecord:
    questions = read_literaryqa(literaryqa)
    system_answers = read_answers(answers, questions)
    items = likert_items(questions, system_answers, mode)
    name = name or f"likert-{Path(answers).stem}-{mode}"
    with open_project(project_path) as project:
        store = StudyStore(project)
        sid = store.create_study(
            name, LIKERT, items, scale=scale_for(LIKERT), mode=mode,
            instructions=json.dumps(rubric(mode)), source=f"{literaryqa} + {answers}",
        )
        return store.study(sid)


def assign(project_path: str | Path, study: str, annotators: list[str], overlap: int, *, kind: str = "human") -> dict:
    """Give every item to ``overlap`` annotators, balanced round-robin; returns counts per annotator."""
    annotators = [a.strip() for a in annotators if a.strip()]
    if not annotators:
        raise StudyError("give at least one annotator, e.g. --annotators A,B,C")
    if len(set(annotators)) != len(annotators):
        raise StudyError(f"an annotator is named twice in {','.join(annotators)}")
    if not 1 <= overlap <= len(annotators):
        raise StudyError(f"--overlap must be between 1 and the number of annotators ({len(annotators)}), not {overlap}")
    with open_project(project_path, create=False) as project:
        store = StudyStore(project)
        rec = store.study(study)
        store.add_annotators(rec.id, annotators, kind)
        items = store.items(rec.id)
        plan: dict[str, list[int]] = {a: [] for a in annotators}
        for n, item in enumerate(items):
            for j in range(overlap):
                plan[annotators[(n * overlap + j) % len(annotators)]].append(item.id)
        store.set_assignments(rec.id, plan)
        return {a: len(v) for a, v in store.assignments(rec.id).items()}


# ---------------------------------------------------------------- listing
def list_studies(project_path: str | Path) -> list[dict]:
    with open_project(project_path, readonly=True) as project:
        store = StudyStore(project)
        return [_status(store, s) for s in store.studies()]


def study_status(project_path: str | Path, study: str) -> dict:
    with open_project(project_path, readonly=True) as project:
        store = StudyStore(project)
        return _status(store, store.study(study))


def study_items(project_path: str | Path, study: str) -> list[dict]:
    """A proxy study's items exactly as shown: item id, BEIR query id (None for pinned evidence),
    the analysis text the annotator reads, and the options in shown order (1-based positions)."""
    with open_project(project_path, readonly=True) as project:
        store = StudyStore(project)
        rec = _proxy_study(store, study, "list its items")
        return [{"item_id": str(item.id), "query_id": _query_id(item), "context": item.data.get("context", ""),
                 "options": [{"position": n, "text": o["text"], "gold": bool(o.get("gold")),
                              "doc_id": o.get("source_id")} for n, o in enumerate(item.options, start=1)]}
                for item in store.items(rec.id)]


def check_study(project_path: str | Path, study: str) -> dict:
    """Items of a stored proxy study whose options share a sentence or a run of 8 words
    (studies made before this check existed can have them): per item, which options
    (1-based, as shown) and the shared text."""
    with open_project(project_path, readonly=True) as project:
        store = StudyStore(project)
        rec = _proxy_study(store, study, "check its options")
        items = store.items(rec.id)
    problems = []
    for item in items:
        pairs = options_overlap([o["text"] for o in item.options])
        if pairs:
            problems.append({"item_id": str(item.id), "query_id": _query_id(item),
                             "overlaps": [{"options": [i + 1, j + 1], "shared": shared} for i, j, shared in pairs]})
    return {"study": rec.name, "items": len(items), "overlapping": len(problems), "problems": problems}


def _proxy_study(store: StudyStore, study: str, action: str) -> StudyRecord:
    rec = store.study(study)
    if rec.kind != PROXY:
        raise StudyError(f"study {rec.name!r} is a {rec.kind} study; only a proxy study has options to {action}")
    return rec


def _query_id(item: ItemRecord) -> str | None:
    """The BEIR query an item was made from; None for an item made from pinned evidence."""
    if "query_id" in item.data:
        return item.data["query_id"]
    return None if "claim" in item.data else item.key  # items stored before query_id was recorded


def _status(store: StudyStore, s: StudyRecord) -> dict:
    items = store.items(s.id)
    assigned = store.assignments(s.id)
    done = defaultdict(int)
    for (_, annotator) in effective_judgments(store.events(s.id)):
        done[annotator] += 1
    return {"id": s.id, "name": s.name, "kind": s.kind, "mode": s.mode, "scale": s.scale, "items": len(items),
            "created_at": s.created_at,
            "annotators": {a: {"assigned": len(v), "done": done.get(a, 0)} for a, v in sorted(assigned.items())},
            "judgments": sum(done.values())}


# ---------------------------------------------------------------- annotating
@dataclass
class QueueEntry:
    item: ItemRecord
    value: object = None  # the standing answer, or None
    skipped: bool = False


@dataclass
class AnnotationSession:
    """One annotator working through their queue. Owns its own connection to the project.

    Blind by construction: it only ever reads this annotator's own events.
    """

    project_path: Path
    study: StudyRecord
    annotator: str
    queue: list[QueueEntry] = field(default_factory=list)

    @classmethod
    def open(cls, project_path: str | Path, study: str, annotator: str) -> AnnotationSession:
        project = open_project(project_path)
        store = StudyStore(project)
        try:
            rec = store.study(study)
            store.annotator_id(rec.id, annotator)
            session = cls(Path(project_path), rec, annotator)
            session._project, session._store = project, store
            session.reload()
        except BaseException:
            project.close()
            raise
        return session

    def close(self) -> None:
        self._project.close()

    def reload(self) -> None:
        store = self._store
        item_ids = store.assignments(self.study.id).get(self.annotator, [])
        by_id = {i.id: i for i in store.items(self.study.id)}
        mine = store.events(self.study.id, annotator=self.annotator)  # never reads the others' answers
        standing = effective_judgments(mine)
        undone = {e.undoes for e in mine if e.event == "undo"}
        skipped = {e.item_id for e in mine if e.event == "skip" and e.uid not in undone}
        self._mine = mine
        self.queue = []
        for item_id in item_ids:
            item = by_id[item_id]
            ev = standing.get((item.key, self.annotator))
            self.queue.append(QueueEntry(item, ev.value if ev else None, item_id in skipped and ev is None))

    @property
    def done(self) -> int:
        return sum(1 for e in self.queue if e.value is not None)

    def next_index(self, after: int = -1) -> int | None:
        """The next unanswered, unskipped item after ``after``; then skipped ones; None when all done."""
        n = len(self.queue)
        for pass_skipped in (False, True):
            for k in range(1, n + 1):
                i = (after + k) % n
                e = self.queue[i]
                if e.value is None and e.skipped == pass_skipped:
                    return i
        return None

    def _record(self, index: int, event: str, **kw) -> JudgmentEvent:
        entry = self.queue[index]
        shown = [o.get("source_id") or str(n + 1) for n, o in enumerate(entry.item.options)]
        ev = self._store.record(self.study.id, entry.item.id, self.annotator, event, options_shown=shown, **kw)
        self._mine.append(ev)
        return ev

    def answer(self, index: int, value: object, *, note: str = "", duration_ms: int | None = None) -> JudgmentEvent:
        if value not in self.study.scale:
            raise StudyError(f"{value!r} is not on this study's scale {self.study.scale}")
        ev = self._record(index, "answer", value=value, note=note, duration_ms=duration_ms)
        self.queue[index].value = value
        self.queue[index].skipped = False
        return ev

    def skip(self, index: int, *, note: str = "", duration_ms: int | None = None) -> JudgmentEvent:
        ev = self._record(index, "skip", note=note, duration_ms=duration_ms)
        self.queue[index].skipped = True
        return ev

    def undo(self) -> int | None:
        """Take back this annotator's last answer or skip (a new 'undo' event); return its queue index."""
        undone = {e.undoes for e in self._mine if e.event == "undo"}
        last = next((e for e in reversed(self._mine) if e.event in ("answer", "skip") and e.uid not in undone), None)
        if last is None:
            return None
        index = next(i for i, q in enumerate(self.queue) if q.item.id == last.item_id)
        self._record(index, "undo", undoes=last.uid)
        self.reload()
        return index


# ---------------------------------------------------------------- agreement
@dataclass
class StudyTable:
    table: ag.RatingTable
    gold: dict[str, object]
    level: str
    weights: str | None
    order: np.ndarray  # (judgment rows in time order) × 2: item row, annotator column
    kind: str


def study_table(store: StudyStore, rec: StudyRecord, events: list[JudgmentEvent] | None = None) -> StudyTable:
    events = store.events(rec.id) if events is None else events
    standing = effective_judgments(events)
    ordered = sorted(standing.values(), key=lambda e: (e.created_at, e.id))
    table = ag.RatingTable.from_triples(((e.item_key, e.annotator, e.value) for e in ordered), categories=rec.scale)
    row = {k: i for i, k in enumerate(table.items)}
    col = {a: j for j, a in enumerate(table.annotators)}
    order = np.array([(row[e.item_key], col[e.annotator]) for e in ordered], dtype=np.int64).reshape(-1, 2)
    gold = {}
    if rec.kind == PROXY:
        gold = {i.key: i.gold_position for i in store.items(rec.id) if i.gold_position is not None}
    level = "ordinal" if rec.kind == LIKERT else "nominal"
    weights = "quadratic" if rec.kind == LIKERT else None
    return StudyTable(table, gold, level, weights, order, rec.kind)


def dashboard_numbers(st: StudyTable, *, n_boot: int = 200, seed: int = 0,
                      pair: tuple[str, str] | None = None) -> dict:
    """Everything the agreement dashboard shows, recomputed from a :class:`StudyTable`."""
    summary = ag.summarize(st.table, level=st.level, cohen_weights=st.weights, gold=st.gold or None,
                           n_boot=n_boot, seed=seed)
    anns = list(st.table.annotators)
    matrix = np.full((len(anns), len(anns)), np.nan)
    for key, est in summary.cohen_kappa.items():
        a, b = key.split("|")
        matrix[anns.index(a), anns.index(b)] = matrix[anns.index(b), anns.index(a)] = est.value
    for i in range(len(anns)):
        matrix[i, i] = 1.0
    if pair is None and len(anns) >= 2:
        pair = (anns[0], anns[1])
    confusion = ag.confusion_matrix(st.table, *pair) if pair and all(p in anns for p in pair) else None
    return {"summary": summary, "annotators": anns, "pair_matrix": matrix, "pair": pair, "confusion": confusion,
            "over_time": ag.fleiss_over_time(st.table, st.order, points=30), **review_numbers(st)}


def review_numbers(st: StudyTable) -> dict:
    """What the study lead reads beside the agreement numbers.

    ``raters``: how many annotators rate a typical item (the most common count among rated
    items); ``disagreements``: the items with two or more ratings that are not all the same,
    as ``{"item", "answers": {annotator: label}, "gold"}``; ``support``: how many items each
    statistic rests on (``fleiss`` = items with ≥ 2 ratings, ``majority`` = such items with a
    gold answer, ``accuracy``/``cohen`` per annotator/pair).
    """
    table = st.table
    rated = table.codes >= 0
    per_item = rated.sum(1)
    counts = np.bincount(per_item[per_item > 0]) if per_item.any() else np.zeros(1, dtype=int)
    raters = int(counts.argmax()) if counts.any() else 0
    cats = table.categories
    disagreements = []
    for i, key in enumerate(table.items):
        codes = table.codes[i][rated[i]]
        if len(codes) >= 2 and len(set(codes.tolist())) > 1:
            answers = {a: cats[int(table.codes[i, j])] for j, a in enumerate(table.annotators) if rated[i, j]}
            disagreements.append({"item": key, "answers": answers, "gold": st.gold.get(key)})
    has_gold = np.array([k in st.gold for k in table.items], dtype=bool) if len(table.items) else np.zeros(0, bool)
    anns = list(table.annotators)
    support = {
        "fleiss": int((per_item >= 2).sum()),
        "majority": int(((per_item >= 2) & has_gold).sum()),
        "accuracy": {a: int((rated[:, j] & has_gold).sum()) for j, a in enumerate(anns)},
        "cohen": {f"{a}|{b}": int((rated[:, j] & rated[:, k]).sum())
                  for j, a in enumerate(anns) for k, b in enumerate(anns) if j < k},
    }
    return {"raters": raters, "disagreements": disagreements, "support": support}


def check_bootstrap(n_boot: int) -> None:
    if n_boot < 0:
        raise LitLensError(f"--bootstrap {n_boot}: the number of bootstrap replicates is 0 (no intervals) or more, "
                           "e.g. --bootstrap 1000")


def study_agreement(project_path: str | Path, study: str, *, n_boot: int = 1000, seed: int = 0) -> ag.AgreementSummary:
    check_bootstrap(n_boot)
    with open_project(project_path, readonly=True) as project:
        store = StudyStore(project)
        st = study_table(store, store.study(study))
    return ag.summarize(st.table, level=st.level, cohen_weights=st.weights, gold=st.gold or None, n_boot=n_boot, seed=seed)


def agreement_from_csv(path: str | Path, *, kind: str = "nominal", scale: str | None = None,
                       weights: str | None = "auto", n_boot: int = 0) -> ag.AgreementSummary:
    """Agreement of any ``item_id,annotator,label`` CSV (see :mod:`litlens.studies.judgments`)."""
    if kind not in ag.LEVELS:
        raise LitLensError(f"--kind must be one of {', '.join(ag.LEVELS)}, not {kind!r}")
    check_bootstrap(n_boot)
    scale_list = parse_scale(scale)
    rows = read_judgments_csv(path, scale=scale_list, numeric=kind != "nominal" and scale_list is None)
    table = ag.RatingTable.from_triples(((r.item_id, r.annotator, r.label) for r in rows), categories=scale_list)
    if weights == "auto":
        weights = None if kind == "nominal" else "quadratic"
    return ag.summarize(table, level=kind, cohen_weights=weights, n_boot=n_boot)


# ---------------------------------------------------------------- export and merge
def export_study(project_path: str | Path, study: str, output: str | Path, *, n_boot: int = 1000,
                 all_events: bool = False) -> dict:
    """judgments.csv (one row per standing judgment) + agreement.json beside it.

    With ``all_events`` the CSV is the whole log instead: every answer, skip and undo, with
    ``event`` and ``undoes`` columns (agreement.json still describes the standing answers).
    """
    check_bootstrap(n_boot)
    output = Path(output)
    if not output.parent.exists():
        raise LitLensError(f"{output}: the folder {output.parent} does not exist; create it first")
    with open_project(project_path, readonly=True) as project:
        store = StudyStore(project)
        rec = store.study(study)
        events = store.events(rec.id)
        items = {i.key: i for i in store.items(rec.id)}
        st = study_table(store, rec, events)
    standing = sorted(effective_judgments(events).values(), key=lambda e: (e.item_key, e.annotator))
    rows = events if all_events else standing
    tmp = output.with_name(output.name + ".part")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(EXPORT_COLUMNS + (["event", "undoes"] if all_events else []))
        for e in rows:
            item = items[e.item_key]
            gold = item.gold_position
            correct = "" if gold is None or e.value is None else int(e.value == gold)
            writer.writerow(safe_row([rec.name, e.item_key, e.annotator, "" if e.value is None else e.value,
                             gold if gold is not None else "", correct, json.dumps(e.options_shown),
                             json.dumps([o["text"] for o in item.options], ensure_ascii=False) if item.options else "",
                             e.created_at, "" if e.duration_ms is None else e.duration_ms, e.note, e.uid, e.origin]
                            + ([e.event, e.undoes or ""] if all_events else [])))
    tmp.replace(output)
    summary = ag.summarize(st.table, level=st.level, cohen_weights=st.weights, gold=st.gold or None, n_boot=n_boot)
    agreement = {**summary.as_json(), "study": rec.name, "kind": rec.kind, "details": summary.as_detailed_json(),
                 "events": len(events)}
    agreement_path = output.with_name("agreement.json")
    agreement_path.write_text(json.dumps(agreement, indent=2) + "\n", encoding="utf-8")
    return {"judgments": len(standing), "rows": len(rows), "events": len(events), "output": str(output),
            "agreement": str(agreement_path)}


# ---------------------------------------------------------------- QA metrics
def qa_metrics(literaryqa: str | Path, answers: str | Path, *, ratings: str | None = None,
               project_path: str | Path | None = None, bertscore: bool = False) -> dict:
    """EM, F1, ROUGE-L, METEOR per answer; system-level Kendall τ against human Likert ratings.

    ``ratings`` is a Likert study name (with ``project_path``) or a judgments CSV whose
    item_id is ``<question_id>|<system>``; an answer's human score is the mean of its ratings.
    """
    from litlens.studies.qa_metrics import BertScorer, meta_evaluate, score_answers

    questions = read_literaryqa(literaryqa)
    system_answers = read_answers(answers, questions)
    human = _ratings(ratings, project_path) if ratings else None
    scorer = BertScorer() if bertscore else None
    result = meta_evaluate(score_answers(questions, system_answers, bertscore=scorer), human)
    if scorer is not None:
        result["bertscore_model"] = scorer.label
    return result


def _ratings(ratings: str, project_path: str | Path | None) -> dict[tuple[str, str], float]:
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    if Path(ratings).is_file() and project_path is None:
        for r in read_judgments_csv(ratings, numeric=True):
            qid, _, system = r.item_id.partition("|")
            values[(qid, system)].append(float(r.label))
    else:
        if project_path is None:
            raise LitLensError(f"--ratings {ratings!r}: pass -p PROJECT for a study name, or a judgments CSV file")
        with open_project(project_path, readonly=True) as project:
            store = StudyStore(project)
            rec = store.study(ratings)
            if rec.kind != LIKERT:
                raise StudyError(f"study {rec.name!r} is a {rec.kind} study; --ratings needs a Likert study")
            items = {i.key: i for i in store.items(rec.id)}
            humans = {name for _, name, kind in store.annotators(rec.id) if kind == "human"}
            for (key, annotator), e in effective_judgments(store.events(rec.id)).items():
                if annotator in humans:  # the LLM judge is a rater to compare with, not ground truth
                    d = items[key].data
                    values[(d["question_id"], d["system"])].append(float(e.value))
    return {k: sum(v) / len(v) for k, v in values.items() if v}


# ---------------------------------------------------------------- LLM judge
def run_llm_judge(
    project_path: str | Path, study: str, *, annotator: str = "llm-judge", backend_kind: str = "transformers",
    model: str | None = None, limit: int | None = None, max_new_tokens: int = 96,
    progress: Progress | None = None, cancelled: Cancelled | None = None,
    backend: object | None = None,
) -> dict:
    """Rate a Likert study's items with an LLM (rubric + short rationale), recorded as one more annotator."""
    from litlens.studies.judge import build_prompt, parse_rating

    with open_project(project_path) as project:
        store = StudyStore(project)
        rec = store.study(study)
        if rec.kind != LIKERT:
            raise StudyError(f"the LLM judge rates Likert studies; {rec.name!r} is a {rec.kind} study")
        store.add_annotators(rec.id, [annotator], "llm")
        done = {k for (k, a) in effective_judgments(store.events(rec.id)) if a == annotator}
        todo = [i for i in store.items(rec.id) if i.key not in done][: limit or None]
        if not todo:
            return {"rated": 0, "unparsed": 0, "annotator": annotator}
        if backend is None:
            from litlens.llm import load_backend

            backend = load_backend(kind=backend_kind, model=model)
        rated = unparsed = 0
        for n, item in enumerate(todo):
            check_cancelled(cancelled, "LLM judge")
            reply = backend.chat([build_prompt(item.data, rec.mode or "reference")], max_new_tokens=max_new_tokens,
                                 temperature=0.0)[0]
            score, rationale = parse_rating(reply)
            if score is None:
                unparsed += 1
                store.record(rec.id, item.id, annotator, "skip", note=f"unparsed reply: {reply[:500]}")
            else:
                store.record(rec.id, item.id, annotator, "answer", value=score, note=rationale[:1000])
                rated += 1
            if progress:
                progress((n + 1) / len(todo), f"judged {n + 1} of {len(todo)}")
        return {"rated": rated, "unparsed": unparsed, "annotator": annotator}



class AgreementMonitor:
    """Keeps a study's judgment log in memory and re-reads only new events on refresh.

    Used by the live dashboard (from a worker thread): ``refresh()`` costs one indexed query
    for the new rows plus the recompute, not a re-read of the whole log. Owns its own
    connection (opened on first use, in the thread that uses it).
    """

    def __init__(self, project_path: str | Path, study: str):
        self.project_path = Path(project_path)
        self.study_name = study
        self._project: Project | None = None
        self._events: list[JudgmentEvent] = []
        self._last_id = 0

    def _store(self) -> StudyStore:
        if self._project is None:
            self._project = open_project(self.project_path)
            self._store_ = StudyStore(self._project)
            self.study = self._store_.study(self.study_name)
            self.items = {i.key: i for i in self._store_.items(self.study.id)}
            self._gold_items = {k: i.gold_position for k, i in self.items.items()}
        return self._store_

    def open(self) -> None:
        """Open the project and read the study's items (done by the first refresh otherwise)."""
        self._store()

    def has_new_events(self) -> bool:
        """True when judgments were written (by any process) since the last refresh, or none was made."""
        store = self._store()
        return not self._events and self._last_id == 0 or store.last_event_id(self.study.id) > self._last_id

    def close(self) -> None:
        if self._project is not None:
            self._project.close()
            self._project = None

    def refresh(self, *, n_boot: int = 200, pair: tuple[str, str] | None = None, read: bool = True) -> dict:
        """Read new judgments (unless ``read`` is False) and recompute; ``n_boot`` = 0 skips the CIs."""
        store = self._store()
        if read:
            new = store.events(self.study.id, after_id=self._last_id)
            if new:
                self._events.extend(new)
                self._last_id = new[-1].id
                self._apply(new)
                self._table = None
        st = self._table if getattr(self, "_table", None) is not None else self.table()
        self._table = st
        numbers = dashboard_numbers(st, n_boot=n_boot, pair=pair)
        numbers["events"] = len(self._events)
        done = defaultdict(int)
        for (_, annotator) in self._cells:
            done[annotator] += 1
        numbers["progress"] = {a: {"done": done.get(a, 0), "assigned": len(v)}
                               for a, v in sorted(store.assignments(self.study.id).items())}
        numbers["items"] = self.items
        numbers["kind"] = self.study.kind
        numbers["scale"] = self.study.scale
        return numbers

    # The standing answers are kept up to date event by event: cell (item, annotator) → code,
    # in the order the standing answers were given (a changed answer moves to the end).
    _cells: dict
    _max_created: str = ""

    def _apply(self, new: list[JudgmentEvent]) -> None:
        cells = getattr(self, "_cells", None)
        late = any(e.created_at < self._max_created for e in new)  # merged from elsewhere: out of order
        if cells is None or late or any(e.event == "undo" for e in new):
            standing = sorted(effective_judgments(self._events).values(), key=lambda e: (e.created_at, e.id))
            self._cells = {(e.item_key, e.annotator): e.value for e in standing}
        else:
            for e in new:
                if e.event == "answer":
                    cells.pop((e.item_key, e.annotator), None)
                    cells[(e.item_key, e.annotator)] = e.value
        self._max_created = max([self._max_created] + [e.created_at for e in new])

    def table(self) -> StudyTable:
        if getattr(self, "_cells", None) is None:
            self._apply([])
        cat = {c: k for k, c in enumerate(self.study.scale)}
        items = list(dict.fromkeys(k for k, _ in self._cells))
        annotators = sorted({a for _, a in self._cells})
        row = {k: i for i, k in enumerate(items)}
        col = {a: j for j, a in enumerate(annotators)}
        n = len(self._cells)
        rows = np.fromiter((row[k] for k, _ in self._cells), dtype=np.int64, count=n)
        cols = np.fromiter((col[a] for _, a in self._cells), dtype=np.int64, count=n)
        values = np.fromiter((cat[v] for v in self._cells.values()), dtype=np.int64, count=n)
        codes = np.full((len(items), len(annotators)), -1, dtype=np.int64)
        codes[rows, cols] = values
        table = ag.RatingTable(tuple(items), tuple(annotators), tuple(self.study.scale), codes)
        order = np.stack([rows, cols], axis=1) if n else np.zeros((0, 2), dtype=np.int64)
        gold = {k: g for k, g in self._gold_items.items() if g is not None} if self.study.kind == PROXY else {}
        level = "ordinal" if self.study.kind == LIKERT else "nominal"
        return StudyTable(table, gold, level, "quadratic" if self.study.kind == LIKERT else None, order, self.study.kind)
