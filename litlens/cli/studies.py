"""Annotation studies and their agreement: study …, agreement, qa-metrics."""

from __future__ import annotations

import argparse
import textwrap

from litlens.cli.common import add_command, book_arg, emit_json, progress_bar, project_arg, table


def _cmd_study_create_proxy(args: argparse.Namespace) -> int:
    from litlens.services.studies import create_proxy_study

    with progress_bar("create proxy study") as bar:
        study = create_proxy_study(args.project, beir=args.beir, pinned=args.pinned, distractors=args.distractors,
                                   per_item=args.per_item, name=args.name, seed=args.seed, limit=args.limit,
                                   progress=bar, book_id=args.book)
    skipped = study.settings.get("skipped", [])
    if args.json:
        from litlens.services.studies import study_status

        emit_json({"id": study.id, "name": study.name, "items": study_status(args.project, study.name)["items"],
                    "skipped": skipped})
        return 0
    for s in skipped:
        print(f"skipped item {s['key']}: {s['reason']}")
    if skipped:
        print(f"{len(skipped)} item(s) skipped; they are listed in `litlens study create-proxy … --json`")
    print(f"created proxy study {study.name!r} (id {study.id}) in {args.project}; "
          f"next: litlens study assign -p {args.project} {study.name} --annotators A,B,C --overlap 3")
    return 0

def _cmd_study_items(args: argparse.Namespace) -> int:
    from litlens.services.studies import study_items

    items = study_items(args.project, args.study)
    if args.json:
        emit_json(items)
        return 0
    for item in items:
        query = f" (query {item['query_id']})" if item["query_id"] else ""
        print(f"item {item['item_id']}{query}")
        print(textwrap.indent("\n".join(textwrap.fill(line, 100) for line in item["context"].splitlines()), "    "))
        for o in item["options"]:
            mark = "*" if o["gold"] else " "
            doc = f" [{o['doc_id']}]" if o["doc_id"] else ""
            print(textwrap.indent(textwrap.fill(f"{o['position']}{mark}{doc} {o['text']}", 100), "  "))
        print()
    print(f"{len(items)} items; * marks the gold option")
    return 0

def _cmd_study_check(args: argparse.Namespace) -> int:
    from litlens.services.studies import check_study

    report = check_study(args.project, args.study)
    if args.json:
        emit_json(report)
        return 0
    for p in report["problems"]:
        for o in p["overlaps"]:
            i, j = o["options"]
            print(f"item {p['item_id']}: options {i} and {j} share \"{o['shared']}\"")
    if report["overlapping"]:
        print(f"{report['overlapping']} of {report['items']} items have overlapping options")
    else:
        print(f"no item of {report['items']} has overlapping options")
    return 0

def _cmd_study_create_likert(args: argparse.Namespace) -> int:
    from litlens.services.studies import create_likert_study

    study = create_likert_study(args.project, literaryqa=args.literaryqa, answers=args.answers, mode=args.mode,
                                name=args.name)
    print(f"created Likert study {study.name!r} (id {study.id}, {study.mode}-based) in {args.project}")
    return 0

def _cmd_study_assign(args: argparse.Namespace) -> int:
    from litlens.services.studies import assign

    counts = assign(args.project, args.study, args.annotators.split(","), args.overlap)
    print(f"study {args.study}: " + ", ".join(f"{a} {n} items" for a, n in counts.items()))
    return 0

def _cmd_study_list(args: argparse.Namespace) -> int:
    from litlens.services.studies import list_studies

    studies = list_studies(args.project)
    if args.json:
        emit_json(studies)
        return 0
    table([[s["id"], s["name"], s["kind"], s["mode"] or "", s["items"], len(s["annotators"]), s["judgments"]]
            for s in studies], ["id", "name", "kind", "mode", "items", "annotators", "judgments"])
    return 0

def _cmd_study_status(args: argparse.Namespace) -> int:
    from litlens.services.studies import study_agreement, study_status

    status = study_status(args.project, args.study)
    summary = study_agreement(args.project, args.study, n_boot=args.bootstrap)
    if args.json:
        emit_json({**status, "agreement": summary.as_detailed_json()})
        return 0
    print(f"{status['name']} ({status['kind']}, {status['items']} items, {status['judgments']} judgments)")
    table([[a, v["done"], v["assigned"]] for a, v in status["annotators"].items()], ["annotator", "done", "assigned"])
    for key, value in summary.as_json().items():
        print(f"  {key}: {value}")
    if summary.majority_accuracy is not None:
        print(f"  majority_accuracy: {summary.majority_accuracy.value:.3f}")
        for name, est in summary.accuracy.items():
            print(f"  accuracy {name}: {est.value:.3f}")
    return 0

def _cmd_study_export(args: argparse.Namespace) -> int:
    from litlens.services.studies import export_study

    result = export_study(args.project, args.study, args.output, n_boot=args.bootstrap, all_events=args.all_events)
    what = f"{result['rows']} events" if args.all_events else f"{result['judgments']} judgments"
    print(f"wrote {what} to {result['output']} and the agreement summary to {result['agreement']}")
    return 0

def _cmd_study_merge(args: argparse.Namespace) -> int:
    from litlens.services.study_merge import merge

    report = merge(args.project, args.files)
    if args.json:
        emit_json(report)
        return 0
    for f in report["files"]:
        print(f"{f['file']}: {f['added']} judgments added, {f['duplicates']} duplicates skipped")
    for c in report["conflicts"]:
        values = "; ".join(f"{src}: {v}" for src, v in c["values"].items())
        print(f"conflict: {c['study']} item {c['item_id']} annotator {c['annotator']}: {values}")
    print(f"{report['added']} added, {report['duplicates']} duplicates, {len(report['conflicts'])} conflicts")
    return 0

def _cmd_study_judge(args: argparse.Namespace) -> int:
    from litlens.services.studies import run_llm_judge

    with progress_bar("LLM judge") as bar:
        result = run_llm_judge(args.project, args.study, annotator=args.annotator, backend_kind=args.backend,
                               model=args.model, limit=args.limit, progress=bar)
    print(f"{result['annotator']}: rated {result['rated']} items, {result['unparsed']} replies without a score")
    return 0

def _cmd_agreement(args: argparse.Namespace) -> int:
    from litlens.services.studies import agreement_from_csv

    summary = agreement_from_csv(args.judgments, kind=args.kind, scale=args.scale, n_boot=args.bootstrap)
    if args.json:
        emit_json(summary.as_json() if not args.bootstrap else {**summary.as_json(), "details": summary.as_detailed_json()})
        return 0
    for key, value in summary.as_json().items():
        print(f"{key}: {value}")
    return 0

def _cmd_qa_metrics(args: argparse.Namespace) -> int:
    from litlens.services.studies import qa_metrics

    result = qa_metrics(args.literaryqa, args.answers, ratings=args.ratings, project_path=args.project,
                        bertscore=args.bertscore)
    if args.json:
        emit_json(result)
        return 0
    metrics = [k for k in next(iter(result["systems"].values()))]
    table([[s] + [f"{m[k]:.3f}" for k in metrics] for s, m in result["systems"].items()], ["system"] + metrics)
    if "kendall_tau" in result:
        print("system-level Kendall tau vs human: " + ", ".join(f"{k} {v}" for k, v in result["kendall_tau"].items()))
    print(f"METEOR: {result['meteor_variant']}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """study … (create-proxy, items, check, create-likert, assign, list, status, export, merge, judge)."""
    p = add_command(sub, "study", None, "annotation studies: create, assign, status, export, merge",
             "litlens study create-proxy -p s.litlens --beir ../shared/data/birco-relic-dev --distractors bm25")
    study_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    q = add_command(study_sub, "create-proxy", _cmd_study_create_proxy,
             "create a 3-candidate proxy-task study (gold + strongest distractors, shuffled per item)",
             "litlens study create-proxy -p s.litlens --beir ../shared/data/birco-relic-dev --distractors bm25 --per-item 3")
    project_arg(q)
    q.add_argument("--beir", help="BEIR folder (queries.jsonl, corpus.jsonl, qrels/test.tsv)")
    q.add_argument("--pinned", nargs="+", metavar="CLAIM",
                   help="claims whose pinned evidence passages are the gold (see `litlens evidence pin`)")
    book_arg(q)
    q.add_argument("--distractors", choices=["bm25", "dense"], default="bm25", help="ranker for the distractors")
    q.add_argument("--per-item", type=int, default=3, help="candidates per item, gold included (default 3)")
    q.add_argument("--name", help="study name (default: proxy-<folder>)")
    q.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    q.add_argument("--limit", type=int, help="use only the first N queries")
    q.add_argument("--json", action="store_true", help="print the study and the skipped items as JSON")
    q = add_command(study_sub, "items", _cmd_study_items,
             "print a proxy study's items as shown: context and options in shown order, gold marked",
             "litlens study items -p s.litlens proxy-birco-relic-dev --json")
    project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = add_command(study_sub, "check", _cmd_study_check,
             "report items whose options share a sentence or a run of 8 words (which options, what text)",
             "litlens study check -p s.litlens proxy-birco-relic-dev")
    project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = add_command(study_sub, "create-likert", _cmd_study_create_likert,
             "create a 1-5 Likert study of system answers to LiteraryQA questions",
             "litlens study create-likert -p s.litlens --literaryqa ../shared/data/literaryqa/test.jsonl "
             "--answers answers.csv --mode reference")
    project_arg(q)
    q.add_argument("--literaryqa", required=True, help="LiteraryQA split (.jsonl)")
    q.add_argument("--answers", required=True, help="system answers: CSV question_id,system,answer or JSONL")
    q.add_argument("--mode", choices=["reference", "summary"], default="reference", help="what raters see besides the references")
    q.add_argument("--name", help="study name")
    q = add_command(study_sub, "assign", _cmd_study_assign, "add annotators and give each item to --overlap of them",
             "litlens study assign -p s.litlens proxy-birco-relic-dev --annotators A,B,C --overlap 3")
    project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--annotators", required=True, help="comma-separated names, e.g. A,B,C")
    q.add_argument("--overlap", type=int, default=1, help="annotators per item (default 1)")
    q = add_command(study_sub, "list", _cmd_study_list, "list the project's studies", "litlens study list -p s.litlens")
    project_arg(q)
    q.add_argument("--json", action="store_true", help="print JSON")
    q = add_command(study_sub, "status", _cmd_study_status, "progress per annotator and agreement so far",
             "litlens study status -p s.litlens proxy-birco-relic-dev --json")
    project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates for the CIs (default 1000)")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = add_command(study_sub, "export", _cmd_study_export,
             "export one row per judgment as CSV, with agreement.json beside it",
             "litlens study export -p s.litlens proxy-birco-relic-dev -o out/judgments.csv")
    project_arg(q)
    q.add_argument("study", help="study name or id")
    q.add_argument("-o", "--output", required=True, help="output CSV")
    q.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates for the CIs (default 1000)")
    q.add_argument("--all-events", action="store_true",
                   help="write the whole log (answers, skips, undos) instead of the standing judgments")
    q = add_command(study_sub, "merge", _cmd_study_merge,
             "merge judgments from annotators' project files or exported CSVs (duplicates skipped, conflicts reported)",
             "litlens study merge -p lead.litlens annotator_b.litlens annotator_c_judgments.csv")
    project_arg(q)
    q.add_argument("files", nargs="+", help="project files or judgment CSVs from `litlens study export`")
    q.add_argument("--json", action="store_true", help="print JSON")
    q = add_command(study_sub, "judge", _cmd_study_judge,
             "rate a Likert study's items with an LLM as one more annotator (slow on CPU)",
             "litlens study judge -p s.litlens likert-answers-reference --limit 5")
    project_arg(q)
    q.add_argument("study", help="Likert study name or id")
    q.add_argument("--annotator", default="llm-judge", help="annotator name to record (default llm-judge)")
    q.add_argument("--backend", default="transformers", choices=["transformers", "gguf", "openai"], help="LLM backend")
    q.add_argument("--model", help="model id or path (default: the packaged small model on CPU)")
    q.add_argument("--limit", type=int, help="rate at most N items")


def register_agreement(sub: argparse._SubParsersAction) -> None:
    """agreement, qa-metrics."""
    p = add_command(sub, "agreement", _cmd_agreement,
             "inter-annotator agreement of any CSV with columns item_id,annotator,label",
             "litlens agreement --judgments judgments.csv --kind ordinal --json")
    p.add_argument("--judgments", required=True, help="CSV with item_id,annotator,label (extra columns ignored)")
    p.add_argument("--kind", choices=["nominal", "ordinal", "interval"], default="nominal",
                   help="level of measurement for Krippendorff's alpha (ordinal/interval: quadratic Cohen weights)")
    p.add_argument("--scale", help="the allowed labels in order, e.g. 1-5 or low,mid,high")
    p.add_argument("--bootstrap", type=int, default=0, help="bootstrap replicates for 95%% CIs (adds a details key)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = add_command(sub, "qa-metrics", _cmd_qa_metrics,
             "EM, token F1, ROUGE-L, METEOR of system answers; Kendall tau against human Likert ratings",
             "litlens qa-metrics --literaryqa ../shared/data/literaryqa/test.jsonl --answers answers.csv "
             "--ratings likert-answers-reference -p s.litlens --json")
    p.add_argument("--literaryqa", required=True, help="LiteraryQA split (.jsonl)")
    p.add_argument("--answers", required=True, help="system answers: CSV question_id,system,answer or JSONL")
    p.add_argument("--ratings", help="a Likert study name (with -p) or a judgments CSV (item_id = question_id|system)")
    p.add_argument("--bertscore", action="store_true", help="add BERTScore with the packaged MiniLM encoder (slower)")
    project_arg(p, required=False)
    p.add_argument("--json", action="store_true", help="print JSON")
