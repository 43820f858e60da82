"""Rewrite the golden files from the engine, or find seeds whose game shows a set of rules.

    .venv/bin/python -m tests.golden.regenerate                      # rewrite every file of GAMES
    .venv/bin/python -m tests.golden.regenerate --find europe 3      # seeds showing that game's rules

After a rewrite, review `git diff tests/golden`: every changed line is a change in how the game plays.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from tests.golden.evidence import exercised
from tests.golden.playthrough import GAMES, Golden, play


def rewrite() -> None:
    for game in GAMES:
        lines = play(game)
        game.path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"wrote {game.path.name}: {len(lines)} lines")


def find(map_name: str, players: int, seeds: int) -> None:
    """Print the seeds below `seeds` whose game shows every rule the kept game of that map is for."""
    kept = next((g for g in GAMES if g.map == map_name), Golden(map_name, players, 0))
    wanted = set(kept.rules)
    print(f"seeds of {map_name}, {players} players, showing {sorted(wanted)}:")
    for seed in range(1, seeds):
        game = replace(kept, players=players, seed=seed)
        lines = play(game)
        if wanted <= exercised("".join(line + "\n" for line in lines)):
            print(f"  {seed}: {len(lines)} lines")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--find", nargs=2, metavar=("MAP", "PLAYERS"), help="list seeds instead of rewriting")
    parser.add_argument("--seeds", type=int, default=300, help="with --find: try seeds 1 to this")
    args = parser.parse_args(argv)
    if args.find:
        find(args.find[0], int(args.find[1]), args.seeds)
    else:
        rewrite()
    return 0


if __name__ == "__main__":
    sys.exit(main())
