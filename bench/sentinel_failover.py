"""Redis failover under load: `.venv/bin/python bench/sentinel_failover.py [--games 100] [--json FILE]`.

Starts a Sentinel group of its own (bench/fault_stack/sentinel.py: a Redis primary, a replica, three Sentinels with
quorum 2 on loopback) and the production layout on it (bench/fault_stack/harness.py with REDIS_URL the group's
`redis+sentinel://` URL: the channel layer, Celery's broker, presence and the readiness probe all go through
Sentinel), plays `--games` ranked games of people (HTTP and socket) and greedy and strong bots with bench/traffic/,
and once the games are well under way (`--kill-after-events` events in the log) SIGKILLs the Redis primary. Sentinel
promotes the replica; the killed server then comes back as a replica of the new primary (`--no-rejoin`: not).

Figures: the seconds until a majority of the Sentinels named the replica and it answered as the primary; the
longest time without a bot's move and without any move around the kill (from the log's own times); the answers
by status from the kill until the first bot move after the promotion, and the socket reconnects and handshake
refusals in that window; and what was lost or duplicated, from the database at the end: games not finished, not
scored exactly once, `game_ended` notifications missing (one per person per game), mails missing or sent twice
(every person here has a confirmed address and mail goes every 2 s, each game's notification in a mail of its own),
plus every check of bench/traffic/'s `check_games` (each acknowledged move in the log, every log verifying, no
hidden card leaked, every 5xx but 503), a 500 in any process's log, and `recompute_ratings --check`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fault_stack.harness import Harness, harness  # noqa: E402
from bench.fault_stack.scenario import scored_apart_from_once  # noqa: E402
from bench.fault_stack.sentinel import SentinelGroup  # noqa: E402
from bench.traffic.checks import check_games  # noqa: E402
from bench.traffic.figures import summary  # noqa: E402
from bench.traffic.play import play_games  # noqa: E402
from bench.traffic.recorder import Recorder  # noqa: E402
from bench.traffic.records import GameRecord  # noqa: E402

# What the stack needs for this drill beside the group's URL: many games per person, mail every 2 s with no gap
# (each notification in its own mail, so each can be counted), lost tasks requeued soon.
DRILL_ENV = {
    "AUTH_THROTTLE_RATE": "100000/min", "TTR_MAX_LIVE_GAMES": "100000", "TTR_MAIL_SECONDS": "2",
    "TTR_MAIL_GAP_SECONDS": "0",
}
BOT_MOVES = "reason <> '' AND type <> 'turn_timed_out'"  # a bot's move says why (games/store: Event.reason)


@dataclass
class Outcome:
    records: list[GameRecord]
    recorder: Recorder
    figures: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _scalar(h: Harness, statement: str, *params: Any) -> Any:
    return h.query(statement, *params)[0][0]


def give_everyone_an_address(h: Harness) -> int:
    """A confirmed address for every user (so game_ended notifications are mailed); how many users."""
    h.query(
        "INSERT INTO games_account (user_id, email, email_pending, notify, language)"
        " SELECT id, username || '@example.test', '', '{}'::jsonb, '' FROM auth_user"
        " ON CONFLICT (user_id) DO UPDATE SET email = EXCLUDED.email"
    )
    return int(_scalar(h, "SELECT count(*) FROM auth_user"))


def _wait(condition: Any, seconds: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def run(h: Harness, group: SentinelGroup, *, games: int, seed: int, kill_after_events: int, rejoin: bool = True,
        **play: Any) -> Outcome:
    """Play `games` games on `h` (whose REDIS_URL is `group`'s), SIGKILL the Redis primary once the log holds
    `kill_after_events` events, and measure (see the module's doc)."""
    recorder = Recorder()
    result: dict[str, Any] = {}

    def players() -> None:
        try:
            result["records"] = play_games(h.urls, games, seed=seed, recorder=recorder, **play)
        except BaseException as error:  # raised below, not lost in the thread
            result["error"] = error

    thread = threading.Thread(target=players, name="players")
    started = time.monotonic()
    thread.start()
    figures: dict[str, Any] = {"games": games}
    if not _wait(lambda: int(_scalar(h, "SELECT count(*) FROM games_event")) >= kill_after_events or not
                 thread.is_alive(), seconds=900, step=0.2):
        raise RuntimeError(f"the games never reached {kill_after_events} events")
    figures["addresses"] = give_everyone_an_address(h)
    figures["sentinel_before"] = group.view()
    _, statuses_before, counters_before = recorder.tallies()
    killed_wall = time.time()
    figures["killed_at_s"] = round(time.monotonic() - started, 1)
    figures["killed_port"] = group.kill_primary()
    say("primary killed", port=figures["killed_port"], at_s=figures["killed_at_s"])
    figures["promoted_after_s"] = round(group.wait_promoted(), 2)
    say("replica promoted", after_s=figures["promoted_after_s"])
    promoted_wall = time.time()

    def bot_moved_since_promotion() -> bool:
        newest = _scalar(h, f"SELECT extract(epoch FROM max(created_at)) FROM games_event WHERE {BOT_MOVES}")
        return newest is not None and float(newest) > promoted_wall

    resumed = _wait(lambda: bot_moved_since_promotion() or not thread.is_alive(), seconds=300)
    _, statuses_after, counters_after = recorder.tallies()
    figures["first_bot_move_after_kill_s"] = round(time.time() - killed_wall, 2) if resumed else None
    figures["statuses_during_gap"] = _delta(statuses_before, statuses_after)
    say("bot moves again", after_s=figures["first_bot_move_after_kill_s"], statuses=figures["statuses_during_gap"])
    figures["client_counters_during_gap"] = {
        name: count for name, count in _delta(counters_before, counters_after).items()
        if name.startswith(("ws ", "retried", "transport"))
    }
    if rejoin:
        group.rejoin()
        figures["old_primary_rejoined"] = True
    figures["sentinel_after"] = group.view()
    thread.join()
    say("games over", seconds=round(time.monotonic() - started, 1))
    if "error" in result:
        raise result["error"]
    outcome = Outcome(result["records"], recorder, figures)
    figures["seconds"] = round(time.monotonic() - started, 1)
    window_end = killed_wall + (figures["first_bot_move_after_kill_s"] or 60.0) + 5.0
    figures["longest_without_bot_move_s"] = _longest_gap(h, killed_wall, window_end, BOT_MOVES)
    figures["longest_without_any_move_s"] = _longest_gap(h, killed_wall, window_end, "seat IS NOT NULL")
    figures["log_warnings_and_errors"] = _log_counts(h)
    outcome.problems = problems(h, outcome)
    return outcome


def say(what: str, **figures: Any) -> None:
    """A line of progress on stderr (the report goes to stdout)."""
    print(json.dumps({"event": what, **figures}, default=str), file=sys.stderr, flush=True)


def _delta(before: dict[Any, int], after: dict[Any, int]) -> dict[Any, int]:
    return {key: after[key] - before.get(key, 0) for key in after if after[key] - before.get(key, 0)}


def _longest_gap(h: Harness, start: float, end: float, condition: str) -> float | None:
    """The longest time between two events matching `condition` (the log's own times) from the last one before
    `start` up to `end`, in seconds: how long nothing of the kind happened around the kill."""
    rows = h.query(
        f"SELECT extract(epoch FROM created_at) FROM games_event WHERE {condition} AND created_at BETWEEN"
        f" coalesce((SELECT max(created_at) FROM games_event WHERE {condition} AND created_at < to_timestamp(%s)),"
        " to_timestamp(%s)) AND to_timestamp(%s) ORDER BY created_at", start, start, end,
    )
    times = [float(row[0]) for row in rows]
    return round(max((b - a for a, b in itertools.pairwise(times)), default=0.0), 2) if times else None


def _log_counts(h: Harness) -> dict[str, int]:
    """Warning and error lines in every process's log, by process, level and logger (what an operator sees)."""
    counts: Counter[str] = Counter()
    for name, line in h.log_lines():
        if line.get("level") in ("warning", "error", "critical"):
            counts[f"{name.rstrip('0123456789-')} {line.get('level')} {line.get('logger')}"] += 1
    return dict(counts.most_common())


def problems(h: Harness, outcome: Outcome) -> list[str]:
    """Everything lost, duplicated or answered wrongly (empty: all good); fills the loss figures."""
    h.stack.wait_ready()
    figures = outcome.figures
    found = check_games(h.urls[0], outcome.records, outcome.recorder, tolerate_statuses=(503,))
    found += [f"a 500 in the logs: {line}" for line in h.server_errors()]
    ratings = h.manage("recompute_ratings", "--check")
    if ratings.returncode != 0:
        found.append(f"recompute_ratings --check: {ratings.stdout[-500:]} {ratings.stderr[-500:]}")
    unfinished = [r.id or f"#{r.index}" for r in outcome.records if not r.finished]
    not_once = scored_apart_from_once(h)
    found += [f"game {game} scored {count} times" for game, count in not_once]
    lost, doubled = notifications(h)
    found += [f"game {game}: user {user} has no game_ended notification" for game, user in lost]
    mails = mail_counts(h, outcome)
    found += [f"mail: {line}" for line in mails.pop("problems")]
    statuses = outcome.recorder.tallies()[1]
    figures["losses"] = {
        "games_unfinished": len(unfinished), "games_not_scored_once": len(not_once),
        "notifications_missing": len(lost), "notifications_duplicated": doubled, **mails,
        "answers_500": sum(n for status, n in statuses.items() if status >= 500 and status != 503),
        "server_errors_in_logs": len(h.server_errors()), "problems": len(found),
    }
    return found



def notifications(h: Harness) -> tuple[list[tuple[Any, Any]], int]:
    """(game, user) of each person seated in a finished game with no game_ended notification of it, and how many
    such notifications are there more than once (the unique key makes that 0 by construction: checked anyway)."""
    missing = h.query(
        "SELECT s.game_id, s.user_id FROM games_seat s JOIN games_game g ON g.id = s.game_id"
        " WHERE g.status = 'finished' AND s.user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM games_notification n"
        " WHERE n.kind = 'game_ended' AND n.game_id = s.game_id AND n.user_id = s.user_id)"
    )
    doubled = _scalar(h, "SELECT count(*) FROM (SELECT 1 FROM games_notification WHERE kind = 'game_ended'"
                         " GROUP BY game_id, user_id HAVING count(*) > 1) twice")
    return missing, int(doubled)


SEPARATOR = "-" * 79  # Django's file backend writes one after each message
GAME_LINK = re.compile(r"/games/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")  # the mail's link


def mail_counts(h: Harness, outcome: Outcome, seconds: float = 120.0) -> dict[str, Any]:
    """Once no notification is pending (or `seconds` passed): the mails written (TTR_VAR_DIR/mail), the
    notifications marked sent, and each (address, game) mailed other than once."""
    _wait(lambda: int(_scalar(h, "SELECT count(*) FROM games_notification WHERE mail = 'pending'")) == 0, seconds, 0.5)
    sent = h.query(
        "SELECT u.username || '@example.test', n.game_id::text FROM games_notification n JOIN auth_user u"
        " ON u.id = n.user_id WHERE n.mail = 'sent' AND n.kind = 'game_ended'"
    )
    pending = int(_scalar(h, "SELECT count(*) FROM games_notification WHERE mail = 'pending'"))
    mailed: Counter[tuple[str, str]] = Counter()
    for path in sorted((h.var_dir / "mail").glob("*")):
        for message in path.read_text(errors="replace").split(SEPARATOR):
            to = re.search(r"^To: (.+)$", message, re.MULTILINE)
            if to is None:
                continue
            for game in set(GAME_LINK.findall(message)) or {"no game"}:
                mailed[(to.group(1).strip(), game)] += 1
    expected = Counter((address, game) for address, game in sent)
    problems = [f"{address} was not mailed about game {game}" for address, game in expected if mailed[(address, game)] < 1]
    problems += [f"{address} was mailed {n} times about game {game}" for (address, game), n in mailed.items() if n > 1]
    if pending:
        problems.append(f"{pending} notifications still pending")
    return {
        "mails_written": sum(mailed.values()), "notifications_mailed": len(sent), "mails_pending": pending,
        "mails_missing": sum(1 for key in expected if mailed[key] < 1),
        "mails_duplicated": sum(n - 1 for n in mailed.values() if n > 1), "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--kill-after-events", type=int, help="kill once the log holds this many (default 25 a game)")
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--think", type=float, nargs=2, default=[0.5, 2.0], metavar=("MIN", "MAX"))
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-rejoin", action="store_true", help="leave the killed primary down")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    report: dict[str, Any] = {"date": datetime.now().isoformat(timespec="minutes"), "args": vars(args) | {"json": None}}
    with SentinelGroup() as group, harness(
        f"ttr_sentinel_{os.getpid()}", web=args.web, extra_env={**DRILL_ENV, "REDIS_URL": group.url}
    ) as h:
        outcome = run(
            h, group, games=args.games, seed=args.seed, kill_after_events=args.kill_after_events or 25 * args.games,
            rejoin=not args.no_rejoin, think=tuple(args.think), socket_share=0.5, strong_share=0.1,
            users=args.users, stall_seconds=600, score_seconds=600,
        )
        traffic = summary(outcome.recorder)
    report |= outcome.figures
    report["finished"] = sum(1 for record in outcome.records if record.finished)
    report["traffic"] = {key: traffic[key] for key in ("moves", "moves_per_s", "statuses", "5xx", "counters")}
    report["problem_examples"] = outcome.problems[:10]
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    print(json.dumps(report, indent=1, default=str))
    sys.exit(1 if outcome.problems else 0)


if __name__ == "__main__":
    main()
