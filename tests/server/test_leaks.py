"""Hidden information (docs/RULES.md X-SEC-1) through the HTTP API: whole random games played by scripted clients,
and after every move every response to every player (and a spectator) is checked against the true state.

Nobody may see another seat's hand, tickets (kept or offered) or any pile order until the game ends; the
legitimate way to know a ticket id is to have been dealt it. After the end everything is public."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from bench.traffic.hidden import CARD_KINDS, HIDDEN_KEYS, walk
from bench.traffic.people import choose
from games.engine import load_board
from games.engine.cards import total
from games.store import states
from games.store.models import Event, Game
from tests.server.helpers import Table, body, register, seated_game, url

pytestmark = pytest.mark.django_db

PLAYER_KEYS_ALLOWED_TYPES = (int, bool, type(None))



class Watcher:
    """Checks every response a viewer gets while the game runs; a viewer is a seat or None (a spectator)."""

    def __init__(self, table: Table, spectator: APIClient) -> None:
        self.table = table
        board = load_board(table.map)
        self.all_tickets = set(board.tickets)
        self.viewers: list[tuple[int | None, APIClient]] = [*enumerate(table.clients), (None, spectator)]
        self.seen = {viewer: 0 for viewer, _ in self.viewers}
        self.checked = 0
        self.redacted_seen: set[str] = set()
        self._dealt: dict[int, set[str]] = {}
        self._dealt_at = -1

    # the truth, from the server's own log

    def truth(self, seq: int | None = None) -> Any:
        game = Game.objects.get(pk=self.table.game_id)
        return states.state_at(game.pk, game.seq if seq is None else seq)

    def dealt(self, viewer: int | None) -> set[str]:
        """The tickets ever dealt to `viewer` (read from the log once per seq)."""
        if viewer is None:
            return set()
        seq = Game.objects.values_list("seq", flat=True).get(pk=self.table.game_id)
        if self._dealt_at != seq:
            self._dealt = {}
            for row in Event.objects.filter(game_id=self.table.game_id, type="tickets_dealt"):
                self._dealt.setdefault(row.seat, set()).update(row.data["tickets"])
            self._dealt_at = seq
        return self._dealt.get(viewer, set())

    # generic checks on any response body

    def no_secrets(self, viewer: int | None, payload: Any, what: str) -> None:
        known = self.dealt(viewer)
        for path, value in walk(payload):
            if path.endswith("#key"):
                assert value not in HIDDEN_KEYS, f"{what}: {path} exposes {value!r} to {viewer}"
            elif isinstance(value, str) and value in self.all_tickets:
                assert value in known, f"{what}: ticket {value!r} at {path} was never dealt to viewer {viewer}"
            elif isinstance(value, list) and len(value) >= 6 and all(isinstance(v, str) and v in CARD_KINDS for v in value):
                raise AssertionError(f"{what}: {path} looks like a pile order ({len(value)} cards) for {viewer}")
        self.checked += 1

    def events(self, viewer: int | None, events: list[dict[str, Any]], what: str) -> None:
        self.no_secrets(viewer, events, what)
        for event in events:
            data, kind, seat = event["data"], event["type"], event["seat"]
            mine = seat is not None and seat == viewer
            hidden: tuple[str, ...] = ()
            if kind == "deck_shuffled":
                hidden = ("cards",)
            elif kind == "tickets_shuffled":
                hidden = ("tickets", "long_tickets")
            elif kind == "cards_dealt":
                hidden = () if mine else ("cards",)
                if mine:
                    assert len(data["cards"]) == data["count"]
            elif kind == "tickets_dealt":
                hidden = () if mine else ("tickets",)
                if mine:
                    assert len(data["tickets"]) == data["count"]
            elif kind == "tickets_kept":
                hidden = () if mine else ("kept", "returned")
                if mine:
                    assert len(data["kept"]) == data["kept_count"]
            elif kind == "card_drawn" and data["source"] == "deck":
                hidden = () if mine else ("card",)
                if mine:
                    assert data["card"] in CARD_KINDS
            for name in hidden:
                assert data.get(name) is None, f"{what}: {kind} #{event['seq']} shows {name} to viewer {viewer}"
                self.redacted_seen.add(kind)
            if hidden:
                assert data.get("commitment"), f"{what}: {kind} hides an outcome but commits to nothing"

    def view(self, viewer: int | None, state: dict[str, Any], truth: Any, what: str) -> None:
        self.no_secrets(viewer, state, what)
        view = state["view"]
        assert view["your_seat"] == viewer
        if viewer is None:
            assert view["hand"] == {} and view["tickets"] == [] and not view.get("offered_tickets")
        else:
            player = truth.players[viewer]
            assert view["hand"] == {k: n for k, n in player.hand.items() if n}, what
            assert view["tickets"] == list(player.tickets), what
            assert view["offered_tickets"] == list(truth.offered.get(viewer, ())), what
        for seat, public in enumerate(view["players"]):
            assert all(isinstance(v, PLAYER_KEYS_ALLOWED_TYPES) for v in public.values()), public
            assert public["cards"] == total(truth.players[seat].hand)
            assert public["tickets"] == len(truth.players[seat].tickets)
        assert view["deck_size"] == len(truth.draw_pile)

    # one round of looking, for every viewer

    def look(self, mover: int | None = None, result: dict[str, Any] | None = None) -> dict[int, dict[str, Any]]:
        """Check everything every viewer sees now; returns each deciding seat's /legal-moves (empty once the game
        is over: from then on everything is public)."""
        truth = self.truth()
        if truth.finished:
            return {}
        seq = Game.objects.values_list("seq", flat=True).get(pk=self.table.game_id)
        if result is not None:
            self.events(mover, result["events"], "POST /moves")
        deciders = set(truth.deciders())
        choices = {}
        rng = random.Random(seq)
        for viewer, client in self.viewers:
            state = body(client.get(url(self.table.game_id, "state")))
            self.view(viewer, state, truth, "GET /state")
            assert set(state["view"]["deciding_seats"]) == deciders
            events = body(client.get(url(self.table.game_id, "events"), {"after": self.seen[viewer]}))
            assert [e["seq"] for e in events["events"]] == list(range(self.seen[viewer] + 1, seq + 1))
            self.events(viewer, events["events"], "GET /events")
            self.seen[viewer] = seq
            legal = body(client.get(url(self.table.game_id, "legal-moves")))
            self.no_secrets(viewer, legal, "GET /legal-moves")
            assert legal["seq"] == seq
            assert bool(legal["moves"]) == (viewer in deciders), (viewer, deciders, legal)
            if viewer is not None and legal["moves"]:
                choices[viewer] = legal
            if seq % 7 == 0:
                at = rng.randint(1, seq)
                past = body(client.get(url(self.table.game_id, "replay"), {"at": at}))
                self.view(viewer, past, self.truth(at), f"GET /replay?at={at}")
        if seq % 5 == 0:
            anonymous = body(APIClient().get(url(self.table.game_id, "state")))
            self.view(None, anonymous, truth, "anonymous GET /state")
        assert set(choices) == deciders
        return choices

    def after_the_end(self) -> None:
        truth = self.truth()
        assert truth.finished
        for viewer, client in self.viewers:
            view = body(client.get(url(self.table.game_id, "state")))["view"]
            assert view["hands"] == [{k: n for k, n in p.hand.items() if n} for p in truth.players]
            assert view["player_tickets"] == [list(p.tickets) for p in truth.players]
            events = body(client.get(url(self.table.game_id, "events"), {"after": 0}))["events"]
            shuffled = [e for e in events if e["type"] == "deck_shuffled"]
            assert shuffled and all(e["data"]["cards"] is not None for e in shuffled)
            assert all(e["data"]["tickets"] is not None for e in events if e["type"] == "tickets_dealt")
            assert all(e["data"]["card"] is not None for e in events if e["type"] == "card_drawn")
            past = body(client.get(url(self.table.game_id, "replay"), {"at": 12}))["view"]
            assert "draw_pile" in past and "hands" in past, viewer


@pytest.mark.parametrize(("map_name", "players", "seed"), [("europe", 3, 11), ("usa", 2, 12)])
def test_no_leaks_through_a_whole_game(map_name: str, players: int, seed: int) -> None:
    table = seated_game(f"{map_name}-", map_name, players)
    watcher = Watcher(table, register(f"{map_name}-spectator"))
    rng = random.Random(seed)
    choices = watcher.look()
    moves = 0
    while choices:  # every seat that decides picks from the /legal-moves it was just shown
        seat = rng.choice(sorted(choices))
        move = choose(choices[seat]["moves"], rng)
        response = table.post_move(seat, choices[seat]["seq"], move)
        assert response.status_code == 201, (move, response.content[:300])
        moves += 1
        assert moves < 3000
        choices = watcher.look(seat, body(response))
    assert table.state()["status"] == "finished"
    watcher.after_the_end()
    # the checks saw what they were meant to see
    assert {"deck_shuffled", "tickets_shuffled", "cards_dealt", "tickets_dealt", "tickets_kept", "card_drawn"} <= (
        watcher.redacted_seen
    )
    assert watcher.checked > 10 * moves
