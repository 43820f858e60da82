"""`python -m games.audit verify-dump PATH [PATH ...]`: verify monthly dumps offline (docs/AUDIT.md, "The
verifier"). PATH is a dump's games-YYYY-MM.jsonl.gz (or its manifest), or a directory: all its months, in order.
Exit 0: all of it holds; 1: something does not (the first problems printed, each naming its month, its game and
what failed); 2: a file cannot be read."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from games.audit.dump import Unreadable, is_month
from games.audit.report import SHOWN
from games.audit.verifier import Verified, verify_dumps


def _month(text: str) -> str:
    if not is_month(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a month (YYYY-MM)")
    return text


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (1 or more)")
    return int(text)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m games.audit", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify-dump", help="verify monthly dumps: manifests, chain, every game replayed")
    verify.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="a games-YYYY-MM.jsonl.gz, or a directory")
    verify.add_argument("--keys", type=Path, help="GET /api/keys's body (default: keys.json beside each dump)")
    verify.add_argument("--jobs", type=_jobs, default=1, help="processes that replay the games (default 1)")
    verify.add_argument(
        "--from-month", type=_month, metavar="YYYY-MM",
        help="the month the chain is verified from: its previous month's manifest need not be there",
    )
    verify.add_argument("--quiet", action="store_true", help="no progress line and no line per month")
    return parser


def printed(verified: Verified, *, quiet: bool) -> None:
    report = verified.report
    if not quiet:
        for month in verified.months:
            found = report.by_month.get(month.month, 0)
            verdict = "all holds" if not found else f"{found} problem{'s' * (found != 1)}"
            print(f"{month.month}: {month.games:,} games, {month.events:,} events, manifest key {month.key_id}: {verdict}")
    if not quiet or verified.ratings_across_gaps:
        gaps = verified.ratings_across_gaps
        print(
            f"ratings: {verified.ratings_linked:,} changes chained to the account's previous one"
            + (f"; {gaps:,} of them taken as given, a change not in the dumps (a private game's) between" if gaps else "")
        )
    rate = report.games / verified.seconds if verified.seconds else 0.0
    jobs = f"{verified.jobs} job{'s' * (verified.jobs != 1)}"
    verdict = "all holds" if not report.count else f"{report.count:,} problem{'s' * (report.count != 1)}"
    print(
        f"verified {len(verified.months)} month{'s' * (len(verified.months) != 1)}, {report.games:,} games, "
        f"{report.events:,} events in {verified.seconds:.1f} s ({rate:,.1f} games/s, {jobs}): {verdict}"
    )
    if report.count:
        print(f"the first {len(report.first)}:" if report.count > SHOWN else "problems:")
        for problem in report.first:
            print(f"  {problem}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        verified = verify_dumps(
            args.paths, keys=args.keys, jobs=args.jobs, from_month=args.from_month, progress=not args.quiet
        )
    except Unreadable as error:
        print(f"cannot read the files: {error}")
        return 2
    printed(verified, quiet=args.quiet)
    return 1 if verified.report.count else 0


if __name__ == "__main__":
    sys.exit(main())
