"""The `litlens` command line: parses arguments and calls the services.

One module per command group registers its commands on the parser (:mod:`.library`,
:mod:`.speakers`, :mod:`.evidence`, :mod:`.studies`, :mod:`.audit`); the shared output helpers
are in :mod:`.common`. Errors a user can fix are printed as one line on stderr with a
non-zero exit code.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from litlens.cli import audit, evidence, library, speakers, studies
from litlens.cli.common import add_command
from litlens.errors import LitLensError, LitLensWarning


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="litlens",
        description="LitLens: quotations, speakers, evidence and annotation studies for novels.",
        epilog="example:\n  litlens ingest novel.txt -p novel.litlens && litlens quotes -p novel.litlens",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from litlens import __version__

    parser.add_argument("--version", action="version", version=f"litlens {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    library.register(sub)
    p = add_command(sub, "eval", None, "evaluate the pipeline against gold data",
                    "litlens eval quotes --pdnc ../shared/data/pdnc --json")
    eval_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    library.register_eval(eval_sub)
    p = add_command(sub, "train", None, "train a model on gold data",
                    "litlens train attributor --pdnc ../shared/data/pdnc -o attributor.json")
    train_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    speakers.register(sub, eval_sub, train_sub)
    evidence.register(sub, eval_sub, train_sub)
    studies.register(sub)
    audit.register(sub)
    studies.register_agreement(sub)
    return parser


def command_names(parser: argparse.ArgumentParser | None = None) -> list[str]:
    """Every runnable command as typed, e.g. ["books", "export quotes", ...] (for the README test)."""
    parser = parser or build_parser()
    names: list[str] = []

    def walk(p: argparse.ArgumentParser, prefix: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    has_sub = any(isinstance(a, argparse._SubParsersAction) for a in child._actions)
                    if has_sub:
                        walk(child, f"{prefix}{name} ")
                    else:
                        names.append(f"{prefix}{name}")

    walk(parser, "")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LitLensWarning)
            code = args.handler(args)
        for w in caught:
            if issubclass(w.category, LitLensWarning):
                print(f"litlens: warning: {w.message}", file=sys.stderr)
        return code
    except LitLensError as exc:
        print(f"litlens: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("litlens: interrupted; nothing half-written was kept", file=sys.stderr)
        return 130

