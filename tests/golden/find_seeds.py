"""Find seeds whose game, played by the policy, shows the rules a golden game of that map is kept for.

    .venv/bin/python -m tests.golden.find_seeds europe 3      # seeds 1 to 299 of a 3-player Europe game
    .venv/bin/python -m tests.golden.find_seeds usa 2 --seeds 1000

For when a change to the rules or to the policy makes a kept seed stop showing one of its rules (the test names the
rules it lost): put a seed this prints in `GAMES` (tests/golden/playthrough.py), then regenerate the files
(TTR_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/golden) and review their diff.
"""

from __future__ import annotations

import argparse
import sys

from tests.golden.evidence import exercised
from tests.golden.playthrough import GAMES, Golden, play


def find(map_name: str, players: int, seeds: int) -> None:
    """Print the seeds below `seeds` whose game shows every rule the kept policy game of that map is for."""
    kept = next((g for g in GAMES if g.map == map_name and g.chooser == "policy"), None)
    wanted = set(kept.rules) if kept else set()
    print(f"seeds of {map_name}, {players} players, showing {sorted(wanted)}:")
    for seed in range(1, seeds):
        lines = play(Golden.seeded(map_name, players, seed))
        if wanted <= exercised("".join(line + "\n" for line in lines)):
            print(f"  {seed}: {len(lines)} lines")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("map", choices=("usa", "europe"))
    parser.add_argument("players", type=int)
    parser.add_argument("--seeds", type=int, default=300, help="try seeds 1 to this")
    args = parser.parse_args(argv)
    find(args.map, args.players, args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
