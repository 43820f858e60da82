"""Snapshots in a stable encoding: an engine `State` to JSON of plain data and back, versioned.

A snapshot row holds `encode_state(state)` (compact UTF-8 JSON: lists, dicts, ints, strings, null) and
`format = SNAPSHOT_FORMAT`. Nothing in it is a pickle of an engine class, so an upgrade that renames or
reorders the engine's classes cannot make a stored row unreadable; an upgrade that changes what a state
holds bumps `SNAPSHOT_FORMAT`, and every row of another format is then ignored (`games.store.states` rebuilds the
state from the log and writes fresh snapshots as usual). The board is static map data: only its name is
stored, and `load_board` rebuilds it.

`decode_state(encode_state(s)) == s` for every state a game can reach, dict insertion orders included
(tests/server/test_snapshots.py). Format history:

- 0 (or NULL): the old rows, `pickle.dumps(state)`. Never read.
- 1: this module's JSON of plain data. Ignored since 2.
- 2: the state counts its shuffles (`shuffles`, games/engine/fairness.py), so a replay from a snapshot draws the
  same orders as one from the start.
"""

from __future__ import annotations

import json
from typing import Any

from games.engine.board import load_board
from games.engine.codec import _decoder, _encode
from games.engine.scoring import SeatScore
from games.engine.state import PendingTunnel, Phase, PlayerState, State

SNAPSHOT_FORMAT = 2  # the history is in the docstring above

# The fields this format knows, checked by the tests: a new field in the engine's state needs a new format.
STATE_FIELDS = (
    "board", "players", "first_seat", "phase", "current", "draw_pile", "discards", "market", "ticket_pile",
    "long_pile", "route_owner", "closed", "station_owner", "offered", "tunnel", "turns_left", "end_reason",
    "scores", "winner_seats", "shuffles",
)  # fmt: skip
PLAYER_FIELDS = ("trains", "hand", "tickets", "stations", "score", "barred")
TUNNEL_FIELDS = ("route", "played", "revealed", "extra")

_decode_score = _decoder(SeatScore)


def state_to_data(state: State) -> dict[str, Any]:
    """The state as plain data (JSON-ready). Str-keyed dicts stay objects (JSON keeps their order);
    `offered`, keyed by seat, becomes a list of [seat, tickets] pairs."""
    tunnel = state.tunnel
    return {
        "map": state.board.name,
        "players": [
            {
                "trains": p.trains,
                "hand": p.hand,
                "tickets": p.tickets,
                "stations": p.stations,
                "score": p.score,
                "barred": p.barred,
            }
            for p in state.players
        ],
        "first_seat": state.first_seat,
        "phase": state.phase,
        "current": state.current,
        "draw_pile": state.draw_pile,
        "discards": state.discards,
        "market": state.market,
        "ticket_pile": state.ticket_pile,
        "long_pile": state.long_pile,
        "route_owner": state.route_owner,
        "closed": state.closed,
        "station_owner": state.station_owner,
        "offered": [[seat, list(tickets)] for seat, tickets in state.offered.items()],
        "tunnel": None
        if tunnel is None
        else {
            "route": tunnel.route,
            "played": [list(pair) for pair in tunnel.played],
            "revealed": list(tunnel.revealed),
            "extra": tunnel.extra,
        },
        "turns_left": state.turns_left,
        "end_reason": state.end_reason,
        "scores": [_encode(score, SeatScore) for score in state.scores],
        "winner_seats": list(state.winner_seats),
        "shuffles": state.shuffles,
    }


def state_from_data(data: dict[str, Any]) -> State:
    tunnel = data["tunnel"]
    return State(
        board=load_board(data["map"]),
        players=[
            PlayerState(p["trains"], p["hand"], p["tickets"], p["stations"], p["score"], p["barred"])
            for p in data["players"]
        ],
        first_seat=data["first_seat"],
        phase=Phase(data["phase"]),
        current=data["current"],
        draw_pile=data["draw_pile"],
        discards=data["discards"],
        market=data["market"],
        ticket_pile=data["ticket_pile"],
        long_pile=data["long_pile"],
        route_owner=data["route_owner"],
        closed=data["closed"],
        station_owner=data["station_owner"],
        offered={seat: tuple(tickets) for seat, tickets in data["offered"]},
        tunnel=None
        if tunnel is None
        else PendingTunnel(
            route=tunnel["route"],
            played=tuple((kind, n) for kind, n in tunnel["played"]),
            revealed=tuple(tunnel["revealed"]),
            extra=tunnel["extra"],
        ),
        turns_left=data["turns_left"],
        end_reason=data["end_reason"],
        scores=tuple(_decode_score(score) for score in data["scores"]),
        winner_seats=tuple(data["winner_seats"]),
        shuffles=data["shuffles"],
    )


def encode_state(state: State) -> bytes:
    """The bytes of a snapshot row of format `SNAPSHOT_FORMAT`."""
    return json.dumps(state_to_data(state), separators=(",", ":"), ensure_ascii=False).encode()


def decode_state(raw: bytes | memoryview) -> State:
    """The state of a snapshot row of format `SNAPSHOT_FORMAT` (raises ValueError, KeyError or TypeError on
    a row that is not one)."""
    return state_from_data(json.loads(bytes(raw)))
