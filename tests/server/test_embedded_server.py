"""Integration: the embedded server as `make run` runs it (SQLite, the filesystem broker, a real Celery
worker), live on a free port and driven over HTTP. One server serves the whole module (bench/live/embedded.py)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bench.live.api_client import client, my_decision
from bench.live.embedded import LiveServer, embedded_server
from bench.live.processes import LINUX, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not LINUX, reason="the live-server helpers read /proc")]

RACERS = 20
ROUNDS = 8
DECK = {"type": "draw_card", "source": "deck"}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with embedded_server() as live:
        yield live


def game_against_a_bot(server: LiveServer, username: str) -> tuple[str, httpx.Client]:
    """A started 2-seat Europe game: a newly registered user in seat 0, a random bot in seat 1."""
    human = client(server, username)
    game = human.post("/games", json={"map": "europe", "players": 2}).json()["id"]
    assert human.post(f"/games/{game}/start", json={"fill_with_bots": "random"}).status_code == 200
    return game, human


def play(human: httpx.Client, game: str, seq: int, move: dict[str, Any]) -> int:
    answer = human.post(f"/games/{game}/moves", json={"expected_seq": seq, "move": move})
    assert answer.status_code == 201, answer.text
    return int(answer.json()["seq"])


def keep_tickets_and_pass_the_turn(game: str, human: httpx.Client) -> int:
    """Setup: keep every ticket offered (once the bot has chosen); when the human plays first, draw two
    cards, so that the bot has the turn. The seq after the human's last move."""
    state = my_decision(human, game)
    assert state is not None
    seq = play(human, game, state["seq"], {"type": "keep_tickets", "tickets": state["view"]["offered_tickets"]})
    if state["view"]["first_seat"] == 0:
        seq = play(human, game, play(human, game, seq, DECK), DECK)
    return seq


def turn_handed_back(game: str, human: httpx.Client, after: int, seconds: float = 30) -> int:
    """Wait until the bot's turn has ended; the seq. Read from /events, which reads log rows, not the game
    state: the web process's state cache stays cold, as when a client hears of the bot's move by WebSocket."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        events = human.get(f"/games/{game}/events", params={"after": after}).json()["events"]
        if events and events[-1]["type"] == "turn_ended" and events[-1]["data"]["next_seat"] == 0:
            return int(events[-1]["seq"])
        time.sleep(0.02)
    raise AssertionError(f"the bot did not play its turn in {seconds} s")


def race(human: httpx.Client, game: str, seq: int, move: dict[str, Any]) -> list[tuple[int, Any]]:
    """RACERS identical POST /moves at once, each on its own connection: (status, body) of each."""
    barrier = threading.Barrier(RACERS)
    answers: list[tuple[int, Any]] = []

    def post() -> None:
        with httpx.Client(base_url=human.base_url, headers=human.headers, timeout=60) as http:
            barrier.wait(timeout=30)
            answer = http.post(f"/games/{game}/moves", json={"expected_seq": seq, "move": move})
            answers.append((answer.status_code, answer.json() if answer.status_code != 500 else answer.text))

    threads = [threading.Thread(target=post) for _ in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert len(answers) == RACERS
    return answers


def test_of_many_moves_at_one_seq_one_wins_and_the_others_get_stale_seq_never_a_500(server: LiveServer) -> None:
    # Against a bot: its moves are appended by the worker process, so when the racers come the web process
    # has not seen the new state and each reads the log inside its transaction before its UPDATE (on SQLite
    # a read lock that then wants the write lock, where a second writer made a 500 of it).
    game, human = game_against_a_bot(server, "racer")
    seq = keep_tickets_and_pass_the_turn(game, human)
    for _ in range(ROUNDS):
        seq = turn_handed_back(game, human, seq)
        answers = race(human, game, seq, DECK)
        assert sorted(status for status, _ in answers) == [201] + [409] * (RACERS - 1), answers
        assert all(body["code"] == "stale_seq" for status, body in answers if status == 409), answers
        won = next(body for status, body in answers if status == 201)
        seq = play(human, game, won["seq"], DECK)  # the turn's second card: the bot's turn next


def test_a_bot_seat_answers_a_human_move_through_the_worker(server: LiveServer) -> None:
    game, human = game_against_a_bot(server, "human")
    seq = keep_tickets_and_pass_the_turn(game, human)
    back = turn_handed_back(game, human, seq)
    answer = human.get(f"/games/{game}/events", params={"after": seq}).json()["events"]
    assert answer[0]["seat"] == 1 and answer[-1]["seq"] == back  # the bot's move, then its turn's end


def curl_walkthrough(server: LiveServer) -> str:
    """The README's "Playing with curl" shell block, aimed at the live server."""
    section = (ROOT / "README.md").read_text().split("## Playing with curl", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```\n", 1)[0]
    assert "http://127.0.0.1:8000/api" in block
    return block.replace("http://127.0.0.1:8000/api", server.api)


def test_the_readme_curl_walkthrough_plays_when_pasted_and_again_when_pasted_twice(server: LiveServer) -> None:
    block = curl_walkthrough(server)
    for _ in range(2):  # the second time the user exists: it logs in instead
        # -e and pipefail: any step that fails ends the script with its status
        run = subprocess.run(["bash", "-e", "-o", "pipefail"], input=block, capture_output=True, text=True, timeout=90)
        assert run.returncode == 0, (run.stdout, run.stderr)
        lines = run.stdout.splitlines()
        assert [line for line in lines if line.isdigit()] == ["201", "201"], run.stdout  # both moves were taken
        assert json.loads(lines[-2])["events"][0]["type"] == "card_drawn", run.stdout
    token = httpx.post(f"{server.api}/auth/token", json={"username": "ada", "password": "correct-horse-9"}).json()
    games = httpx.get(f"{server.api}/games", params={"mine": 1}, headers={"Authorization": f"Token {token['token']}"})
    assert len(games.json()["results"]) == 2


def test_an_idle_server_writes_json_lines_that_say_something(server: LiveServer) -> None:
    """Under `make run` the sweep runs every second: it must not write a line each time (5,390 lines in 11
    minutes buried "serving on"). Every line a process logs is one JSON object."""
    time.sleep(4)  # four sweeps at least
    log = (server.var_dir / "server.log").read_text(errors="replace")
    assert "serving on http://" in log
    assert not re.search(r"bots\.tasks\.sweep\[", log), log[-3000:]  # "Task bots.tasks.sweep[id] received"
    assert "Scheduler: Sending due task" not in log
    lines = [line for line in log.splitlines() if line.startswith("{")]
    assert lines and all(json.loads(line)["event"] for line in lines)
    assert not [line for line in lines if json.loads(line)["level"] in ("error", "critical")], lines
