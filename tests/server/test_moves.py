"""Playing (docs/API.md): /state, /legal-moves, POST /moves and every error a move can get; nothing is appended on error."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import load_board
from games.store.models import Event
from tests.server.helpers import API, Table, assert_error, body, register, seated_game, url

pytestmark = pytest.mark.django_db


CARD_KINDS = {"purple", "blue", "orange", "white", "green", "yellow", "black", "red", "locomotive"}
PUBLIC_PLAYER_KEYS = {"seat", "cards", "tickets", "trains", "stations", "score"}


def assert_unchanged(table: Table, seq: int) -> None:
    """Nothing was appended: the game is still at `seq` and the log holds exactly `seq` events."""
    assert table.seq() == seq
    assert Event.objects.filter(game_id=table.game_id).count() == seq
    assert body(table.clients[0].get(url(table.game_id)))["seq"] == seq


def finish_setup(table: Table) -> None:
    """Every seat keeps its fewest possible setup tickets."""
    for seat in range(len(table.clients)):
        moves = table.get(seat, "legal-moves")["moves"]
        table.play(seat, min(moves, key=lambda m: len(m["tickets"])))
    assert table.state()["view"]["phase"] == "turn"


def current(table: Table) -> int:
    seat = table.state()["view"]["current_seat"]
    assert isinstance(seat, int)
    return seat


# /state and /legal-moves.


@pytest.mark.parametrize(("map_name", "offered"), [("europe", 4), ("usa", 3)])
def test_state_view_for_players_and_spectators(map_name: str, offered: int) -> None:
    table = seated_game("p", map_name, 3)
    for seat in range(3):
        state = table.state(seat)
        assert state["status"] == "active" and state["seq"] > 0
        view = state["view"]
        assert view["your_seat"] == seat
        assert view["phase"] == "setup_tickets"
        assert view["current_seat"] is None
        assert sorted(view["deciding_seats"]) == [0, 1, 2]
        assert len(view["players"]) == 3
        for n, player in enumerate(view["players"]):
            assert set(player) >= PUBLIC_PLAYER_KEYS
            assert player["seat"] == n and player["cards"] == 4 and player["trains"] == 45
            assert "hand" not in player
        assert len(view["market"]) == 5 and set(view["market"]) <= CARD_KINDS
        # 110 cards: 4 in each hand, 5 face up, the rest in the deck or discarded by a market wipe (C-DRW-4)
        assert view["deck_size"] + view["discard_size"] == 110 - 3 * 4 - 5
        assert view["routes"] == {} and view["stations"] == {}
        assert sum(view["hand"].values()) == 4 and set(view["hand"]) <= CARD_KINDS
        assert view["tickets"] == []
        assert len(view["offered_tickets"]) == offered
    for spectator in (register("spectator"), APIClient()):
        view = body(spectator.get(url(table.game_id, "state")))["view"]
        assert view["your_seat"] is None and view["hand"] == {} and view["tickets"] == []
        assert not view.get("offered_tickets")


def test_state_of_an_open_game() -> None:
    table = seated_game("p", "usa", 2, start=False)
    state = table.state(1)
    assert state["seq"] == 0 and state["status"] == "open"
    assert state["view"]["your_seat"] == 1
    assert {"current_seat", "phase", "players", "market", "deck_size", "routes", "stations", "hand", "tickets"} <= set(
        state["view"]
    )
    assert table.get(0, "legal-moves") == {"seq": 0, "moves": []}
    assert_error(table.post_move(0, 0, {"type": "draw_tickets"}), 409, "not_active")


def test_legal_moves_setup_and_turn() -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    for seat in range(2):
        legal = table.get(seat, "legal-moves")
        assert legal["seq"] == seq
        offered = set(table.state(seat)["view"]["offered_tickets"])
        assert legal["moves"], "every seat chooses its setup tickets"
        for move in legal["moves"]:
            assert move["type"] == "keep_tickets"
            assert len(move["tickets"]) >= 2 and set(move["tickets"]) <= offered
        # 4 tickets, keep at least 2: C(4,4) + C(4,3) + C(4,2)
        assert len(legal["moves"]) == 1 + 4 + 6
    assert body(register("spectator").get(url(table.game_id, "legal-moves"))) == {"seq": seq, "moves": []}
    finish_setup(table)
    mover = current(table)
    other = 1 - mover
    assert table.get(other, "legal-moves")["moves"] == []
    moves = table.get(mover, "legal-moves")["moves"]
    types = {m["type"] for m in moves}
    assert {"draw_card", "draw_tickets", "build_station"} <= types
    assert {"type": "draw_card", "source": "deck"} in moves
    for move in moves:
        if move["type"] in ("claim_route", "build_station"):
            assert set(move["cards"]) <= CARD_KINDS and all(n > 0 for n in move["cards"].values())


def test_play_a_move_happy_path() -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    keep = table.get(1, "legal-moves")["moves"][0]
    response = table.post_move(1, seq, keep)
    assert response.status_code == 201
    result = body(response)
    assert result["seq"] == seq + 1
    [event] = result["events"]
    assert event["seq"] == seq + 1 and event["type"] == "tickets_kept" and event["seat"] == 1
    assert isinstance(event["at"], str) and "T" in event["at"]
    assert event["data"]["kept"] == keep["tickets"]
    # the mover's own events read back the same through /events
    assert table.get(1, "events", after=seq)["events"] == result["events"]
    assert table.state(1)["view"]["tickets"] == keep["tickets"]
    assert table.state(1)["view"]["offered_tickets"] == []
    assert table.get(1, "legal-moves")["moves"] == []  # seat 1 has chosen; seat 0 still decides
    assert table.state(0)["view"]["deciding_seats"] == [0]


def test_a_whole_turn_of_drawing() -> None:
    table = seated_game("p", "usa", 2)
    finish_setup(table)
    mover = current(table)
    cards_before = table.state(mover)["view"]["players"][mover]["cards"]
    first = table.play(mover, {"type": "draw_card", "source": "deck"})
    assert [e["type"] for e in first["events"]] == ["card_drawn"]
    assert first["events"][0]["data"]["card"] in CARD_KINDS
    assert table.state()["view"]["phase"] == "second_card"
    assert current(table) == mover
    second = table.play(mover, {"type": "draw_card", "source": "deck"})
    assert [e["type"] for e in second["events"]][:2] == ["card_drawn", "turn_ended"]
    view = table.state(mover)["view"]
    assert view["players"][mover]["cards"] == cards_before + 2
    assert view["current_seat"] == 1 - mover and view["phase"] == "turn"


# Refusals.


def test_not_your_turn() -> None:
    table = seated_game("p", "europe", 2)
    table.play(0, table.get(0, "legal-moves")["moves"][0])
    seq = table.seq()
    again = {"type": "keep_tickets", "tickets": table.state(0)["view"]["tickets"]}
    data = assert_error(table.post_move(0, seq, again), 403, "not_your_turn")
    assert data["rule"] == "C-TRN-1"
    assert_unchanged(table, seq)
    table.play(1, table.get(1, "legal-moves")["moves"][-1])
    seq = table.seq()
    waiting = 1 - current(table)
    for move in ({"type": "draw_card", "source": "deck"}, {"type": "draw_tickets"}):
        assert_error(table.post_move(waiting, seq, move), 403, "not_your_turn")
    assert_unchanged(table, seq)


def test_not_a_player() -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    outsider = register("outsider")
    move = {"type": "keep_tickets", "tickets": table.state(0)["view"]["offered_tickets"]}
    response = outsider.post(url(table.game_id, "moves"), {"expected_seq": seq, "move": move}, format="json")
    assert_error(response, 403, "not_a_player")
    assert_unchanged(table, seq)


def test_stale_seq() -> None:
    table = seated_game("p", "usa", 2)
    seq = table.seq()
    move = table.get(0, "legal-moves")["moves"][0]
    for expected in (seq - 1, 0, seq + 1, seq + 1000):
        data = assert_error(table.post_move(0, expected, move), 409, "stale_seq")
        assert data["seq"] == seq
    assert_unchanged(table, seq)
    table.play(0, move)
    # the same request again (a client's retry) is stale now, not a second move
    data = assert_error(table.post_move(0, seq, move), 409, "stale_seq")
    assert data["seq"] == seq + 1
    assert_unchanged(table, seq + 1)


def test_illegal_setup_choices_name_the_rule() -> None:
    for map_name, rule in (("europe", "E-SET-2"), ("usa", "U-SET-1")):
        table = seated_game(f"{map_name}-", map_name, 2)
        seq = table.seq()
        offered = table.state(0)["view"]["offered_tickets"]
        mine, theirs = offered, table.get(1, "legal-moves")["moves"][0]["tickets"]
        for move in (
            {"type": "keep_tickets", "tickets": mine[:1]},  # fewer than 2
            {"type": "keep_tickets", "tickets": []},
            {"type": "keep_tickets", "tickets": [mine[0], mine[0]]},
            {"type": "keep_tickets", "tickets": theirs[:2]},  # not dealt to this seat
            {"type": "draw_card", "source": "deck"},  # setup comes first
            {"type": "draw_tickets"},
        ):
            data = assert_error(table.post_move(0, seq, move), 400, "illegal_move")
            assert data["rule"] == rule, (move, data)
        assert_unchanged(table, seq)


def test_claim_with_wrong_cards_is_c_clm_1() -> None:
    table = seated_game("p", "europe", 2)
    finish_setup(table)
    mover, seq = current(table), table.seq()
    board = load_board("europe")
    red = next(r for r in board.route_list if r.color == "red" and not r.tunnel)
    long_route = next(r for r in board.route_list if r.length >= 6)
    for move in (
        {"type": "claim_route", "route": red.id, "cards": {"blue": red.length}},  # wrong colour
        {"type": "claim_route", "route": red.id, "cards": {"red": red.length + 1}},  # wrong count
        {"type": "claim_route", "route": red.id, "cards": {"red": 1, "blue": red.length - 1}},  # mixed colours
        {"type": "claim_route", "route": long_route.id, "cards": {"locomotive": long_route.length}},  # not held
        {"type": "claim_route", "route": "atlantis--lemuria", "cards": {"red": 1}},  # no such route
    ):
        data = assert_error(table.post_move(mover, seq, move), 400, "illegal_move")
        assert data["rule"] == "C-CLM-1", (move, data)
    assert_unchanged(table, seq)


def test_other_illegal_moves_name_their_rule() -> None:
    europe = seated_game("e", "europe", 2)
    finish_setup(europe)
    mover, seq = current(europe), europe.seq()
    station = {"type": "build_station", "city": "eldorado", "cards": {"red": 1}}
    assert assert_error(europe.post_move(mover, seq, station), 400, "illegal_move")["rule"] == "E-STA-1"
    hand = europe.state(mover)["view"]["hand"]
    missing = next(k for k in sorted(CARD_KINDS) if not hand.get(k))
    station = {"type": "build_station", "city": "paris", "cards": {missing: 1}}
    assert assert_error(europe.post_move(mover, seq, station), 400, "illegal_move")["rule"] == "E-STA-2"
    pay = {"type": "pay_tunnel", "cards": {"red": 1}}
    assert assert_error(europe.post_move(mover, seq, pay), 400, "illegal_move")["rule"] == "C-TRN-1"
    assert_unchanged(europe, seq)
    europe.play(mover, {"type": "draw_card", "source": "deck"})
    seq = europe.seq()
    for move in ({"type": "draw_tickets"}, {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": {"black": 1}}):
        assert assert_error(europe.post_move(mover, seq, move), 400, "illegal_move")["rule"] == "C-DRW-1"
    assert_unchanged(europe, seq)

    usa = seated_game("u", "usa", 2)
    finish_setup(usa)
    mover, seq = current(usa), usa.seq()
    station = {"type": "build_station", "city": "denver", "cards": {"red": 1}}
    assert assert_error(usa.post_move(mover, seq, station), 400, "illegal_move")["rule"] == "U-TRN-1"
    assert_unchanged(usa, seq)


def test_face_up_locomotive_as_second_card_is_c_drw_2() -> None:
    """Cycle the market until a locomotive lies face up when a second card is due, then try to take it."""
    table = seated_game("p", "europe", 2)
    finish_setup(table)
    for _ in range(200):
        state = table.state()
        view = state["view"]
        mover = view["current_seat"]
        if view["phase"] == "second_card" and "locomotive" in view["market"]:
            index = view["market"].index("locomotive")
            seq = state["seq"]
            legal = table.get(mover, "legal-moves")["moves"]
            assert {"type": "draw_card", "source": "market", "index": index} not in legal
            assert all(m["type"] == "draw_card" for m in legal)
            move = {"type": "draw_card", "source": "market", "index": index}
            data = assert_error(table.post_move(mover, seq, move), 400, "illegal_move")
            assert data["rule"] == "C-DRW-2"
            assert_unchanged(table, seq)
            assert table.state()["view"]["market"] == view["market"]
            return
        non_loco = [i for i, card in enumerate(view["market"]) if card not in (None, "locomotive")]
        move = (
            {"type": "draw_card", "source": "market", "index": non_loco[0]}
            if non_loco
            else {"type": "draw_card", "source": "deck"}
        )
        table.play(mover, move)
    pytest.fail("no face-up locomotive appeared at a second draw in 200 draws")


# Malformed requests: 400 invalid, never a 500, nothing appended.

MALFORMED_BODIES: list[Any] = [
    {"move": {"type": "draw_tickets"}},  # no expected_seq
    {"expected_seq": "soon", "move": {"type": "draw_tickets"}},
    {"expected_seq": True, "move": {"type": "draw_tickets"}},
    {"expected_seq": None, "move": {"type": "draw_tickets"}},
    {"expected_seq": -1, "move": {"type": "draw_tickets"}},
    {"expected_seq": 1.5, "move": {"type": "draw_tickets"}},
    {"expected_seq": [3], "move": {"type": "draw_tickets"}},
    {"expected_seq": "SEQ"},  # no move
    {"expected_seq": "SEQ", "move": None},
    {"expected_seq": "SEQ", "move": "draw_tickets"},
    {"expected_seq": "SEQ", "move": ["draw_tickets"]},
    {"expected_seq": "SEQ", "move": 7},
    {"expected_seq": "SEQ", "move": {}},
    {"expected_seq": "SEQ", "move": {"type": "fly"}},
    {"expected_seq": "SEQ", "move": {"type": 3}},
    {"expected_seq": "SEQ", "move": {"type": None}},
    {"expected_seq": "SEQ", "move": {"type": "draw_tickets", "extra": 1}},
    {"expected_seq": "SEQ", "move": {"type": "keep_tickets"}},
    {"expected_seq": "SEQ", "move": {"type": "keep_tickets", "tickets": "a--b"}},
    {"expected_seq": "SEQ", "move": {"type": "keep_tickets", "tickets": [1, 2]}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card"}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "sky"}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "market"}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "market", "index": 5}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "market", "index": -1}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "market", "index": "0"}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "market", "index": True}},
    {"expected_seq": "SEQ", "move": {"type": "draw_card", "source": "deck", "index": 2}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "cards": {"red": 1}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "", "cards": {"red": 1}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": 12, "cards": {"red": 1}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles"}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": ["black"]}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": {"pink": 1}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": {"black": -1}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": {"black": "1"}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": {"black": 1.0}}},
    {"expected_seq": "SEQ", "move": {"type": "claim_route", "route": "amsterdam--bruxelles", "cards": {"black": None}}},
    {"expected_seq": "SEQ", "move": {"type": "pay_tunnel"}},
    {"expected_seq": "SEQ", "move": {"type": "build_station", "cards": {"red": 1}}},
    {"expected_seq": "SEQ", "move": {"type": "build_station", "city": "paris", "cards": "red"}},
    [1, 2, 3],
    "a move",
    42,
    None,
    {},
]


@pytest.mark.parametrize("payload", MALFORMED_BODIES)
def test_malformed_move_requests_are_invalid(payload: Any) -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    if isinstance(payload, dict) and payload.get("expected_seq") == "SEQ":
        payload = {**payload, "expected_seq": seq}
    raw = json.dumps(payload)
    response = table.clients[0].post(url(table.game_id, "moves"), raw, content_type="application/json")
    assert_error(response, 400, "invalid")
    assert_unchanged(table, seq)


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b"{not json", "application/json"),
        (b'{"expected_seq": 8, "move": {"type": "draw_tickets"}', "application/json"),
        (b"", "application/json"),
        (b"\xff\xfe\x00garbage", "application/json"),
    ],
)
def test_garbage_move_bodies_are_invalid(raw: bytes, content_type: str) -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    response = table.clients[0].post(url(table.game_id, "moves"), raw, content_type=content_type)
    assert_error(response, 400, "invalid")
    assert_unchanged(table, seq)


def test_unsupported_media_type_is_json() -> None:
    table = seated_game("p", "europe", 2)
    seq = table.seq()
    response = table.clients[0].post(url(table.game_id, "moves"), b"<move/>", content_type="application/xml")
    assert_error(response, 415, "unsupported_media_type")
    assert_unchanged(table, seq)


# Unknown games.


@pytest.mark.parametrize("game_id", [str(uuid.uuid4()), "not-a-uuid", "0"])
def test_unknown_game_ids_are_not_found(game_id: str) -> None:
    client = register("ada")
    for tail in ("", "state", "legal-moves", "events", "replay", "audit", "verify", "score"):
        assert_error(client.get(url(game_id, tail)), 404, "not_found")
    assert_error(client.get(url(game_id, "replay"), {"at": 1}), 404, "not_found")
    assert_error(client.get(url(game_id, "events"), {"after": 0}), 404, "not_found")
    for tail, payload in (
        ("moves", {"expected_seq": 0, "move": {"type": "draw_tickets"}}),
        ("moves", {"garbage": True}),
        ("join", {}),
        ("bots", {"level": "random"}),
        ("start", {}),
    ):
        assert_error(client.post(url(game_id, tail), payload, format="json"), 404, "not_found")
    assert_error(APIClient().get(url(game_id, "state")), 404, "not_found")
    assert not Event.objects.exists()


def test_moves_after_the_api_prefix_only() -> None:
    client = register("ada")
    assert_error(client.get(f"{API}/games/{uuid.uuid4()}/nonsense"), 404, "not_found")
