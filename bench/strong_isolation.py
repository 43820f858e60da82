"""Does a strong bot's search delay other games? Greedy bots' replies to humans, with and without strong games running.

    nice -n 10 .venv/bin/python bench/strong_isolation.py [--seconds 30] [--humans 2] [--greedy-players 3]
        [--strong-games 2] [--strong-players 2] [--strong-seconds 0.5] [--no-control] [--no-beat]
        [--redis-db 11] [--seed 1] [--json]

The stack is production's layout (docker-compose.yml) on the local servers: a fresh PostgreSQL database
(`ttr_bench_iso_<pid>`, migrated, dropped at the end), Redis db `--redis-db` (flushed at start and end) as broker
and channel layer, one uvicorn web process, one Celery worker on the default queue (TTR_TASK_QUEUE, here a queue
of this run's own) and one on the strong bot's queue (TTR_STRONG_QUEUE, `<TTR_TASK_QUEUE>-strong`), each solo
pool (concurrency 1), and Celery beat running the sweep every second (`--no-beat`: none). Strong decisions get
`--strong-seconds` (TTR_STRONG_SECONDS) each. Every process is stopped on exit, Ctrl-C and errors included.

`--humans` threads each play Europe games over the HTTP API as a client would (random legal moves) as seat 0
against `--greedy-players - 1` greedy bots. For each human move that hands the turn to the bots, from `GET /events`
(the server's clock, taken as each move is appended): the time from the human's move to the bots' first event
("first") and to the last event of their replies, the turn handed back ("all"). Phases of `--seconds` each:

- A: only these games;
- C (control, `--no-control`: skipped): the same while a busy loop takes one core, as a search does;
- B: the same while `--strong-games` games of `--strong-players` strong bots play each other (each created by
  a user who starts it filled with strong bots and resigns at once, fallback bot strong), so the strong worker
  searches all the time.

Prints each phase's reply times (p50/p90/p99/max), the ratio B/A (and C/A) of p50 and p99, how many replies took
longer than one search's budget (what waiting behind a search would cost at least), the tasks each worker ran and
the CPU each process and the machine used, the strong decisions' think times in phase B (from the events: a bot
move's first event minus the event before it, moves that searched have "in N games" in their reason), and with
`--json` one JSON line of everything.

On a 2-core machine the strong worker's search takes one core by design, so the web process, the default worker,
PostgreSQL and this process share the other: B is slower than A from CPU sharing alone, queues or not. C measures
that share without any strong game: B close to C means the queues keep searches out of the greedy games' way;
B well above C (replies near a search's budget) would mean greedy turns wait behind searches.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.bot_latency import hands_over, log_without_requests, percentile  # noqa: E402
from bench.live.api_client import client, my_decision  # noqa: E402
from bench.live.embedded import LiveServer  # noqa: E402
from bench.live.processes import START_SECONDS, free_port, group_members  # noqa: E402
from bench.live.production import stack_environment, web_command, worker_command  # noqa: E402
from bench.realtime import cpu_seconds  # noqa: E402

POLL_SECONDS = 0.05  # the humans' polling of /state, as in bench/bot_latency.py
WARMUP_SECONDS = 5  # the humans play this long before phase A (first imports, caches): not counted
STOP_SECONDS = 5  # after SIGTERM; then SIGKILL (a warm shutdown waits for the search under way)
HUMAN = 0  # the humans' seat (the creator's)
SEARCHED = re.compile(r"in (\d+) games\)$")  # the strong bot's reason when it searched
CELERY_DONE = re.compile(  # a worker's line for a finished task: when, the task's name, its run time
    r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): \w+/\w+\] Task ([\w.]+)\[[^\]]+\] succeeded in ([\d.e-]+)s"
)


def beat_command() -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "ttr_server", "beat", "--loglevel=INFO"]


@dataclass
class Stack(LiveServer):
    """The web process (`process`) and the others by role: "worker", "worker-strong", "beat" (and "hog" in C)."""

    others: dict[str, subprocess.Popen[bytes]] = field(kw_only=True)
    redis_url: str = field(kw_only=True)
    queue: str = field(kw_only=True)
    env: dict[str, str] = field(kw_only=True)

    @property
    def strong_queue(self) -> str:
        return f"{self.queue}-strong"  # settings.TTR_STRONG_QUEUE's default

    def roles(self) -> dict[str, subprocess.Popen[bytes]]:
        return {"web": self.process, **self.others}

    def processes(self) -> list[Any]:
        return [p for process in self.roles().values() for p in group_members(process.pid)]

    def log(self) -> str:
        return log_without_requests(self)

    def backlog(self) -> int:
        """Tasks waiting in the strong queue."""
        import redis

        with redis.Redis.from_url(self.redis_url) as store:
            return int(store.llen(self.strong_queue))

    def spawn(self, role: str, command: list[str]) -> subprocess.Popen[bytes]:
        with open(self.var_dir / f"{role}.log", "wb") as log:
            process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.others[role] = process
        return process

    def wait_log(self, role: str, text: str) -> None:
        deadline = time.monotonic() + START_SECONDS
        while text not in (self.var_dir / f"{role}.log").read_text(errors="replace"):
            assert self.others[role].poll() is None, f"{role} exited:\n{self.log()}"
            assert time.monotonic() < deadline, f"{role} did not log {text!r} in {START_SECONDS} s:\n{self.log()}"
            time.sleep(0.1)

    def end(self, role: str) -> None:
        """Stop one process and its group: SIGTERM, then SIGKILL after STOP_SECONDS."""
        stop_all({role: self.others.pop(role)})

    def stop(self) -> list[Any]:
        return stop_all(self.roles())


def stop_all(processes: dict[str, subprocess.Popen[bytes]]) -> list[Any]:
    """SIGTERM to every process at once (SIGQUIT to the strong worker: a cold shutdown, not waiting for its
    search), SIGKILL to the groups still running STOP_SECONDS later; what was left."""
    for role, process in processes.items():
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT if role == "worker-strong" else signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while any(group_members(p.pid) for p in processes.values()) and time.monotonic() < deadline:
        for process in processes.values():
            process.poll()
        time.sleep(0.05)
    left = []
    for process in processes.values():
        if running := group_members(process.pid):
            left += running
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return left


@contextmanager
def isolation_stack(args: argparse.Namespace) -> Iterator[Stack]:
    """The stack of the module's docstring, stopped and dropped on exit."""
    name = f"ttr_bench_iso_{os.getpid()}"
    with stack_environment(name, args.redis_db) as (var_dir, env):
        env.update(TTR_STRONG_SECONDS=str(args.strong_seconds), TTR_SWEEP_SECONDS="1")
        env.pop("TTR_STRONG_QUEUE", None)
        port = free_port()
        with open(var_dir / "web.log", "wb") as log:
            web = subprocess.Popen(
                web_command(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        stack = Stack(web, port, var_dir, others={}, redis_url=env["REDIS_URL"], queue=env["TTR_TASK_QUEUE"], env=env)
        try:
            stack.spawn("worker", worker_command(stack.queue, f"{name}-default"))
            strong = worker_command(stack.strong_queue, f"{name}-strong")
            stack.spawn("worker-strong", [*strong, "--prefetch-multiplier=1"])
            if not args.no_beat:
                stack.spawn("beat", beat_command())
            stack.wait_serving()
            stack.wait_log("worker", " ready.")
            stack.wait_log("worker-strong", " ready.")
            yield stack
        finally:
            left = stack.stop()
        assert not left, f"still running {STOP_SECONDS} s after SIGTERM: {left}"


@dataclass
class Reply:
    at: float  # the human's move, epoch seconds (server clock)
    first: float  # seconds to the bots' first event
    full: float  # seconds to the last event of their replies (the turn back to the human, or the game's end)


def reply_times(human: httpx.Client, game: str, handed: list[int]) -> list[Reply]:
    events = human.get(f"/games/{game}/events", params={"after": 0}).json()["events"]
    at = {e["seq"]: datetime.fromisoformat(e["at"]).timestamp() for e in events}
    back = [
        e["seq"] for e in events
        if (e["type"] == "turn_ended" and e["data"]["next_seat"] == HUMAN) or e["type"] == "game_ended"
    ]
    replies = []
    for seq in handed:
        end = next((b for b in back if b > seq), None)
        if seq + 1 in at and end is not None:
            replies.append(Reply(at[seq], at[seq + 1] - at[seq], at[end] - at[seq]))
    return replies


def play(human: httpx.Client, rng: random.Random, players: int, until: float, halt: threading.Event) -> list[Reply]:
    """Play games against greedy bots until `until` (epoch seconds); the bots' replies to the human's moves."""
    replies: list[Reply] = []
    while time.time() < until and not halt.is_set():
        game = human.post("/games", json={"map": "europe", "players": players}).json()["id"]
        human.post(f"/games/{game}/start", json={"fill_with_bots": "greedy"}).raise_for_status()
        handed: list[int] = []
        while time.time() < until and not halt.is_set() and my_decision(human, game, poll=POLL_SECONDS) is not None:
            legal = human.get(f"/games/{game}/legal-moves").json()
            move = {"expected_seq": legal["seq"], "move": rng.choice(legal["moves"])}
            answer = human.post(f"/games/{game}/moves", json=move)
            answer.raise_for_status()
            if hands_over(answer.json()["events"]):
                handed.append(answer.json()["seq"])
        if not halt.is_set():
            my_decision(human, game, poll=POLL_SECONDS)  # the replies to the last move are in the log
            replies += reply_times(human, game, handed)
    return replies


def play_all(humans: list[httpx.Client], rngs: list[random.Random], players: int, seconds: float,
             halt: threading.Event) -> list[Reply]:
    """Every human plays in a thread of its own for `seconds`; their replies (a thread's error is raised here)."""
    until = time.time() + seconds
    results: list[list[Reply]] = [[] for _ in humans]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = play(humans[i], rngs[i], players, until, halt)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(humans))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [reply for found in results for reply in found]


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, every core (from /proc/stat)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def worker_tasks(stack: Stack, role: str, start: float, end: float) -> dict[str, Any]:
    """The tasks `role` finished between `start` and `end` (epoch seconds): counts by name, and their run time."""
    counts: Counter[str] = Counter()
    busy = 0.0
    for line in (stack.var_dir / f"{role}.log").read_text(errors="replace").splitlines():
        if found := CELERY_DONE.match(line):
            at = datetime.strptime(found[1], "%Y-%m-%d %H:%M:%S,%f").timestamp()
            if start <= at < end:
                counts[found[2].rsplit(".", 1)[-1]] += 1
                busy += float(found[3])
    return {"tasks": dict(counts), "task_seconds": round(busy, 2)}


def summary(seconds: list[float]) -> dict[str, Any]:
    ms = sorted(x * 1000 for x in seconds)
    if not ms:
        return {"count": 0}
    return {"count": len(ms), **{f"p{q}_ms": round(percentile(ms, q / 100), 1) for q in (50, 90, 99)},
            "max_ms": round(ms[-1], 1)}


def run_phase(name: str, stack: Stack, humans: list[httpx.Client], rngs: list[random.Random],
              args: argparse.Namespace, halt: threading.Event) -> dict[str, Any]:
    roles = {role: [p.pid for p in group_members(process.pid)] for role, process in stack.roles().items()}
    before = {role: cpu_seconds(pids) for role, pids in roles.items()}
    busy, total = machine_cpu()
    start = time.time()
    replies = play_all(humans, rngs, args.greedy_players, args.seconds, halt)
    end = time.time()
    busy, total = machine_cpu()[0] - busy, machine_cpu()[1] - total
    cpu: dict[str, float | None] = {}
    for role, pids in roles.items():
        try:
            cpu[role] = round((cpu_seconds(pids) - before[role]) / (end - start), 2)
        except FileNotFoundError:
            cpu[role] = None  # it ended meanwhile
    replies = [r for r in replies if r.at >= start]
    return {
        "phase": name, "start": start, "end": end, "seconds": round(end - start, 1),
        "first": summary([r.first for r in replies]), "all": summary([r.full for r in replies]),
        "over_budget": sum(r.full >= args.strong_seconds for r in replies),
        "cpu_cores": cpu, "machine_busy_cores": round(busy / total * (os.cpu_count() or 1), 2),
        "worker": worker_tasks(stack, "worker", start, end),
        "worker_strong": worker_tasks(stack, "worker-strong", start, end),
    }


def start_strong_games(http: httpx.Client, count: int, players: int) -> list[str]:
    """`count` games of strong bots only: created, filled with strong bots, and the creator resigns (its seat's
    fallback bot is strong too)."""
    games = []
    for _ in range(count):
        game = http.post("/games", json={"map": "europe", "players": players, "fallback_bot": "strong"}).json()["id"]
        http.post(f"/games/{game}/start", json={"fill_with_bots": "strong"}).raise_for_status()
        http.post(f"/games/{game}/resign").raise_for_status()
        games.append(game)
    return games


def wait_searching(http: httpx.Client, games: list[str], seconds: float = 30) -> None:
    """Wait until a strong bot has moved after a creator's resignation (the strong worker is at work)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for game in games:
            events = http.get(f"/games/{game}/events", params={"after": 0}).json()["events"]
            resigned = next(e["seq"] for e in events if e["type"] == "seat_resigned")
            if any(e.get("reason") for e in events if e["seq"] > resigned):
                return
        time.sleep(0.2)
    raise AssertionError(f"no strong bot moved in {seconds} s")


def think_times(http: httpx.Client, games: list[str], start: float, end: float) -> dict[str, Any]:
    """The strong decisions made between `start` and `end`: each bot move's first event minus the event before
    it (the first move after the resignation is left out). A strong task plays one decision and queues its game
    again, so with several strong games this includes the wait behind the other games' decisions."""
    searched: list[float] = []
    samples: list[float] = []
    unsearched = 0
    for game in games:
        events = http.get(f"/games/{game}/events", params={"after": 0}).json()["events"]
        resigned = next(i for i, e in enumerate(events) if e["type"] == "seat_resigned")
        moves = [i for i, e in enumerate(events) if i > resigned and e.get("reason")]
        for i in moves[1:]:
            at, before = (datetime.fromisoformat(events[j]["at"]).timestamp() for j in (i, i - 1))
            if not (start <= before and at < end):
                continue
            if found := SEARCHED.search(events[i]["reason"]):
                searched.append(at - before)
                samples.append(int(found[1]))
            else:
                unsearched += 1
    samples.sort()
    return {"searched": summary(searched), "unsearched": unsearched,
            "sampled_games_p50": percentile(samples, 0.5) if samples else None}


def ratio(b: dict[str, Any], a: dict[str, Any], key: str) -> float | None:
    return round(b[key] / a[key], 2) if a.get(key) and b.get(key) is not None else None


def describe(phase: dict[str, Any], budget: float) -> str:
    lines = [f"phase {phase['phase']} ({phase['seconds']} s):"]
    for which, words in (("all", "bots' replies complete"), ("first", "bots' first event")):
        s = phase[which]
        lines.append(f"  {words}: {s['count']} replies, p50 {s.get('p50_ms')} ms, p90 {s.get('p90_ms')} ms, "
                     f"p99 {s.get('p99_ms')} ms, max {s.get('max_ms')} ms")
    lines.append(f"  replies of {budget * 1000:.0f} ms or more (one search's budget): {phase['over_budget']}")
    cpu = ", ".join(f"{role} {share}" for role, share in phase["cpu_cores"].items())
    lines.append(f"  CPU, cores: {cpu}; the whole machine {phase['machine_busy_cores']} of {os.cpu_count()}")
    for role in ("worker", "worker_strong"):
        done = phase[role]
        tasks = done["tasks"] or "no tasks"
        lines.append(f"  {role.replace('_', '-')} finished {tasks} ({done['task_seconds']} s of tasks)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30, help="each phase's length")
    parser.add_argument("--humans", type=int, default=2, help="humans playing greedy games at once")
    parser.add_argument("--greedy-players", type=int, default=3, help="seats of a greedy game (one human)")
    parser.add_argument("--strong-games", type=int, default=2)
    parser.add_argument("--strong-players", type=int, default=2)
    parser.add_argument("--strong-seconds", type=float, default=0.5, help="TTR_STRONG_SECONDS")
    parser.add_argument("--no-control", action="store_true", help="skip phase C (a busy loop on one core)")
    parser.add_argument("--no-beat", action="store_true", help="no Celery beat (so no sweep)")
    parser.add_argument("--redis-db", type=int, default=11, help="the Redis db the run owns (flushed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    def interrupted(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)  # a kill stops the stack as Ctrl-C does
    halt = threading.Event()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}: the strong worker's search takes a core "
          f"in phase B by design, so expect B > A from CPU sharing alone; C shows that share", flush=True)
    with isolation_stack(args) as stack:
        humans: list[httpx.Client] = []
        try:
            humans = [client(stack, f"human-{i}") for i in range(args.humans)]
            owner = client(stack, "strong-owner")
            rngs = [random.Random(f"{args.seed}:{i}") for i in range(args.humans)]
            play_all(humans, rngs, args.greedy_players, WARMUP_SECONDS, halt)
            phases = [run_phase("A", stack, humans, rngs, args, halt)]
            print(describe(phases[-1], args.strong_seconds), flush=True)
            if not args.no_control:
                stack.spawn("hog", [sys.executable, "-c", "while True: pass"])
                phases.append(run_phase("C", stack, humans, rngs, args, halt))
                stack.end("hog")
                print(describe(phases[-1], args.strong_seconds), flush=True)
            games = start_strong_games(owner, args.strong_games, args.strong_players)
            wait_searching(owner, games)
            phases.append(run_phase("B", stack, humans, rngs, args, halt))
            backlog = stack.backlog()
            print(describe(phases[-1], args.strong_seconds), flush=True)
            strong = think_times(owner, games, phases[-1]["start"], phases[-1]["end"])
            conclude(phases, strong, backlog, args)
        except BaseException:
            halt.set()
            print(stack.log(), file=sys.stderr)
            raise
        finally:
            halt.set()
            for http in humans:
                http.close()


def conclude(phases: list[dict[str, Any]], strong: dict[str, Any], backlog: int, args: argparse.Namespace) -> None:
    """Print the ratios to phase A, the strong decisions' think times, and the JSON line."""
    by_name = {p["phase"]: p for p in phases}
    a = by_name["A"]
    ratios = {f"{x}_over_A": {f"{which}_{q}": ratio(by_name[x][which], a[which], f"{q}_ms")
                              for which in ("all", "first") for q in ("p50", "p99")}
              for x in ("B", "C") if x in by_name}
    s = strong["searched"]
    print(f"strong decisions in B (budget {args.strong_seconds * 1000:.0f} ms): {s['count']} searched, move to move p50 "
          f"{s.get('p50_ms')} ms, p99 {s.get('p99_ms')} ms, max {s.get('max_ms')} ms, sampled games p50 "
          f"{strong['sampled_games_p50']}; {strong['unsearched']} answered without a search; strong queue backlog "
          f"at B's end: {backlog} tasks (one per strong game waiting: a task plays one decision and queues the "
          f"game again; move to move includes the wait behind the other strong games)")
    for name, values in ratios.items():
        print(f"{name.replace('_over_', '/')}: replies complete p50 {values['all_p50']} p99 {values['all_p99']}; "
              f"first event p50 {values['first_p50']} p99 {values['first_p99']}")
    print(f"greedy replies of {args.strong_seconds * 1000:.0f} ms or more (what waiting behind one search costs at "
          f"least): " + ", ".join(f"{p['phase']} {p['over_budget']}" for p in phases), flush=True)
    if args.json:
        shown = [{k: v for k, v in p.items() if k not in ("start", "end")} for p in phases]
        print(json.dumps({"args": vars(args), "phases": shown, "ratios": ratios, "strong_in_B": strong,
                          "strong_queue_backlog": backlog}), flush=True)

if __name__ == "__main__":
    main()
