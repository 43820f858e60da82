"""Management commands: `verify_game ID|--all` (non-zero exit on a problem) and `export_game ID`."""

from __future__ import annotations

import json
import random
import uuid
from io import StringIO

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from games.engine import replay
from games.engine.codec import event_from_dict
from tests.server.helpers import (
    Table,
    body,
    check_chain,
    check_score,
    finish_by_services,
    seated_game,
    tamper,
    url,
)

pytestmark = pytest.mark.django_db



def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def failing(*args: str) -> tuple[CommandError, str]:
    out = StringIO()
    with pytest.raises(CommandError) as info:
        call_command(*args, stdout=out)
    return info.value, out.getvalue()


@pytest.fixture
def games() -> dict[str, Table]:
    finished = seated_game("f", "usa", 2)
    finish_by_services(finished.game_id, random.Random(5))
    active = seated_game("a", "europe", 3)
    active.play(1, active.get(1, "legal-moves")["moves"][0])
    unstarted = seated_game("o", "europe", 2, start=False)
    return {"finished": finished, "active": active, "open": unstarted}


def test_verify_one_game(games: dict[str, Table]) -> None:
    for table in (games["finished"], games["active"]):
        out = run("verify_game", table.game_id)
        head = body(APIClient().get(url(table.game_id, "verify")))["head_hash"]
        assert out.strip() == f"{table.game_id} ok events={table.seq()} head={head[:16]}"


def test_verify_all(games: dict[str, Table]) -> None:
    out = run("verify_game", "--all")
    assert f"{games['finished'].game_id} ok" in out
    assert f"{games['active'].game_id} ok" in out
    assert games["open"].game_id not in out  # nothing to verify before the start
    assert "FAILED" not in out


def test_verify_all_fails_on_a_tampered_game(games: dict[str, Table]) -> None:
    table = games["finished"]
    claimed = next(e for e in table.get(0, "events")["events"] if e["type"] == "route_claimed")
    data = {**claimed["data"], "type": "route_claimed", "points": claimed["data"]["points"] + 5}
    data.pop("commitment", None)
    tamper(table.game_id, claimed["seq"], data=data)
    error, out = failing("verify_game", "--all")
    assert error.returncode == 1
    assert "1 of 2 game(s) failed" in str(error)
    assert f"{table.game_id} FAILED" in out
    assert f"{games['active'].game_id} ok" in out
    assert f"seq {claimed['seq']}: the row was altered" in out
    error, out = failing("verify_game", table.game_id)
    assert f"seq {claimed['seq']}:" in out
    # and the process exits non-zero, as an operator running `manage.py verify_game --all` sees it
    command = load_command_class(get_commands()["verify_game"], "verify_game")
    with pytest.raises(SystemExit) as exit_info:
        command.run_from_argv(["manage.py", "verify_game", "--all"])
    assert exit_info.value.code == 1  # (run_from_argv closes connections: keep this the last database use)


def test_verify_usage_errors() -> None:
    error, _ = failing("verify_game")
    assert "--all" in str(error)
    error, _ = failing("verify_game", str(uuid.uuid4()))
    assert "no game" in str(error)
    error, _ = failing("verify_game", "not-a-uuid")
    assert "no game" in str(error)


def test_export_game_replays(games: dict[str, Table]) -> None:
    table = games["finished"]
    out = run("export_game", table.game_id)
    assert out.endswith("\n")
    lines = check_chain([json.loads(line) for line in out.splitlines()])
    assert len(lines) == table.seq()
    assert lines == [json.loads(line) for line in APIClient().get(url(table.game_id, "audit")).content.splitlines()]
    state = replay(event_from_dict(line["data"]) for line in lines)
    assert state.finished
    score = check_score(APIClient(), table.game_id)
    assert [s.total for s in state.scores] == [s["total"] for s in score["scores"]]
    assert list(state.winner_seats) == score["winner_seats"]
    # a running game exports too (for staff); it replays to the current state
    active = games["active"]
    lines = [json.loads(line) for line in run("export_game", active.game_id).splitlines()]
    state = replay(event_from_dict(line["data"]) for line in check_chain(lines))
    assert len(lines) == active.seq()
    assert list(state.players[1].tickets) == active.state(1)["view"]["tickets"]


def test_export_usage_errors() -> None:
    for game_id in (str(uuid.uuid4()), "not-a-uuid"):
        error, _ = failing("export_game", game_id)
        assert "no game" in str(error)


def test_signing_keys_entry_prints_a_new_key_for_the_setting_and_its_public_half_apart() -> None:
    """`signing_keys --entry` is the one way to make a TTR_SIGNING_KEYS entry (docs/CHECKPOINTS.md): a key that
    signs, and on stderr the public half that checks it."""
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    out, err = StringIO(), StringIO()
    call_command("signing_keys", "--entry", stdout=out, stderr=err)
    entry = json.loads(out.getvalue())
    assert set(entry) == {"id", "private_key", "valid_from"}
    public_text = err.getvalue().split()[2].rstrip(":")
    private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(entry["private_key"]))
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_text))
    public.verify(private.sign(b"checkpoint"), b"checkpoint")  # raises when the halves do not match
    again = StringIO()
    call_command("signing_keys", "--entry", stdout=again, stderr=StringIO())
    assert json.loads(again.getvalue())["id"] != entry["id"]
    assert "signing_key" not in get_commands()  # one command for the keys
