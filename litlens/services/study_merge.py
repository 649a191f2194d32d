"""Merge other annotators' judgments into a project: from their project files or from the
judgment CSVs `litlens study export` writes. Idempotent (events are known by their uid), all
or nothing, and every conflict reported."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path

from litlens.errors import DataFormatError, LitLensError
from litlens.services.csv_cells import unescape_cell
from litlens.store.project import open_project
from litlens.store.studies import StudyError, StudyRecord, StudyStore, effective_judgments, read_study_file
from litlens.studies.items import StudyItem
from litlens.text.datafile import read_data_text


def merge(project_path: str | Path, files: list[str | Path]) -> dict:
    """Merge studies' judgments from other project files or exported judgment CSVs.

    Events are identified by their uid: one already present is a duplicate and is skipped.
    A conflict is an (item, annotator) whose standing answers differ between the files, or
    between a file and the project merged into (its standing answer before the merge); the
    later judgment stands and every conflict is reported. All or nothing: a bad file or row
    anywhere leaves the project as it was.
    """
    report = {"files": [], "added": 0, "duplicates": 0, "conflicts": []}
    per_source: dict[tuple[str, str, str], dict[str, object]] = _TargetAnswers(project_path)
    with open_project(project_path) as project:
        store = StudyStore(project)
        per_source.store = store
        with project.atomic():  # all or nothing
            for f in files:
                f = Path(f)
                if not f.is_file():
                    raise LitLensError(f"{f}: no such file to merge")
                with open(f, "rb") as fh:
                    is_sqlite = fh.read(16) == b"SQLite format 3\x00"
                added = dup = 0
                if is_sqlite:
                    if f.resolve() == Path(project_path).resolve():
                        raise StudyError(f"{f}: this is the project being merged into; merge other annotators' files")
                    bundles = read_study_file(str(f))
                    if not bundles:
                        raise StudyError(f"{f}: this project file has no studies to merge")
                    for name, bundle in bundles.items():
                        sid = _ensure_study(store, name, bundle)
                        per_source.remember(name)
                        by_key = {i.key: i.id for i in store.items(sid)}
                        for e in bundle["events"]:
                            if e.item_key not in by_key:
                                raise StudyError(f"{f}: item {e.item_key!r} of study {name!r} is not in {project_path}")
                            if store.has_uid(e.uid):
                                dup += 1
                                continue
                            store.record(sid, by_key[e.item_key], e.annotator, e.event, value=e.value, note=e.note,
                                         options_shown=e.options_shown, duration_ms=e.duration_ms, undoes=e.undoes,
                                         uid=e.uid, created_at=e.created_at, origin=e.origin or str(f))
                            added += 1
                        for (key, ann), e in effective_judgments(bundle["events"]).items():
                            per_source[(name, key, ann)][str(f)] = e.value
                else:
                    a, d = _merge_csv(store, f, per_source)
                    added, dup = a, d
                report["files"].append({"file": str(f), "added": added, "duplicates": dup})
                report["added"] += added
                report["duplicates"] += dup
    for (name, key, ann), values in sorted(per_source.items()):
        if len({json.dumps(v) for v in values.values()}) > 1:
            report["conflicts"].append({"study": name, "item_id": key, "annotator": ann, "values": values})
    return report


class _TargetAnswers(defaultdict):
    """(study, item, annotator) → {source: standing answer}. The first time a study is touched,
    the project's own standing answers are added as one more source, so an answer a file
    would replace is reported as a conflict too."""

    def __init__(self, project_path: str | Path):
        super().__init__(dict)
        self.label = f"{project_path} (before the merge)"
        self.store: StudyStore | None = None
        self._seen: set[str] = set()
        self._standing: dict[tuple[str, str, str], object] = {}

    def remember(self, study: str) -> None:
        if study in self._seen or self.store is None:
            return
        self._seen.add(study)
        rec = self.store.study(study)
        for (key, annotator), e in effective_judgments(self.store.events(rec.id)).items():
            self._standing[(study, key, annotator)] = e.value

    def __missing__(self, cell: tuple[str, str, str]) -> dict[str, object]:
        values = self[cell] = {}
        if cell in self._standing:
            values[self.label] = self._standing[cell]
        return values


def _ensure_study(store: StudyStore, name: str, bundle: dict) -> int:
    try:
        rec = store.study(name)
    except StudyError:
        items = [StudyItem(i.key, i.data, []) for i in bundle["items"]]
        from litlens.studies.items import Option

        for item, src in zip(items, bundle["items"]):
            item.options = [Option(o["text"], o.get("source_id"), bool(o.get("gold"))) for o in src.options]
        sid = store.create_study(name, bundle["kind"], items, scale=bundle["scale"], mode=bundle["mode"],
                                 instructions=bundle["instructions"], source=bundle["source"], settings=bundle["settings"])
        rec = store.study(sid)
    for ann, kind in bundle["annotators"]:
        store.add_annotators(rec.id, [ann], kind)
    return rec.id


def _merge_csv(store: StudyStore, path: Path, per_source: dict) -> tuple[int, int]:
    added = dup = 0
    fix = "Merge project files, or CSVs written by `litlens study export`"
    text = read_data_text(path, "judgments CSV", fix)
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        need = ["study", "item_id", "annotator", "label", "judgment_uid", "created_at"]
        try:
            missing = [c for c in need if c not in (reader.fieldnames or [])]
            if missing:
                raise DataFormatError(path, 1, f"missing column(s) {', '.join(missing)}", fix)
            rows = []
            for r in reader:
                rows.append((reader.line_num, {k: unescape_cell(v) if isinstance(v, str) else v for k, v in r.items()}))
        except csv.Error as exc:
            raise DataFormatError(path, reader.line_num, f"the row cannot be read as CSV ({exc})", fix) from None
        studies: dict[str, tuple[StudyRecord, dict[str, int], set[str]]] = {}
        for n, row in rows:
            short = [c for c in need if row.get(c) is None]
            if short:
                raise DataFormatError(path, n, f"the row has no cell for {', '.join(short)}", fix)
            name = row["study"]
            if name not in studies:
                try:
                    rec = store.study(name)
                except StudyError as exc:
                    raise DataFormatError(path, n, str(exc)) from exc
                per_source.remember(name)
                studies[name] = (rec, {i.key: i.id for i in store.items(rec.id)}, {a[1] for a in store.annotators(rec.id)})
            rec, by_key, anns = studies[name]
            from litlens.studies.judgments import parse_label

            label = parse_label(row["label"])
            if row["item_id"] not in by_key:
                raise DataFormatError(path, n, f"unknown item {row['item_id']!r} in study {name!r}")
            if row["annotator"] not in anns:
                raise DataFormatError(path, n, f"unknown annotator {row['annotator']!r} in study {name!r}",
                                      "Add them first with `litlens study assign`")
            if label not in rec.scale:
                raise DataFormatError(path, n, f"label {row['label']!r} is outside the scale {rec.scale}")
            duration_ms, options_shown = _merge_cells(path, n, row)
            per_source[(name, row["item_id"], row["annotator"])][str(path)] = label
            if store.has_uid(row["judgment_uid"]):
                dup += 1
                continue
            store.record(rec.id, by_key[row["item_id"]], row["annotator"], "answer", value=label,
                         note=row.get("note") or "", duration_ms=duration_ms, options_shown=options_shown,
                         uid=row["judgment_uid"], created_at=row["created_at"], origin=row.get("origin") or str(path))
            added += 1
    return added, dup


def _merge_cells(path: Path, line: int, row: dict) -> tuple[int | None, list]:
    """The duration_ms and options_shown cells of a judgments CSV row, checked."""
    duration = (row.get("duration_ms") or "").strip()
    try:
        duration_ms = int(duration) if duration else None
    except ValueError:
        raise DataFormatError(path, line, f"duration_ms {duration!r} is not a whole number of milliseconds",
                              "Leave it empty or write e.g. 5400") from None
    shown = (row.get("options_shown") or "").strip()
    try:
        options_shown = json.loads(shown) if shown else []
    except ValueError:
        options_shown = None
    if not isinstance(options_shown, list) or not all(isinstance(o, (str, int)) for o in options_shown):
        raise DataFormatError(path, line, f"options_shown {shown[:60]!r} is not a JSON list of option ids",
                              'Leave it empty or write e.g. ["d3", "d1", "d2"] as `litlens study export` does')
    return duration_ms, options_shown
