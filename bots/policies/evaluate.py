"""How good a position is for each seat, in expected final points, without playing it out.

Route points so far, 4 per unbuilt station (E-STA-4), the longest path's 10 points to its holder(s) (C-LNG-1),
and each ticket: its points when done, minus them when its plan gives it up, and in between weighted by the
odds of finishing it: the turns its plan still takes (cards to draw, two a turn, and one turn per route)
against the turns the game probably has left (the shortest train supply, about 2.5 trains a turn, C-END-1).
A finished game is scored exactly (`final_score`).

Plans are made on the positions at the root of the search (`roots`, one per seat) and then read against the
board as it now stands: routes claimed since by the seat are done, routes claimed by others cut the plan (a
detour, and worse odds). Planning once per search keeps a rollout's cost in the engine, not in Dijkstra.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engine import final_score
from games.engine.paths import components, joined, longest_trail
from games.engine.state import State

from .plan import Position, plan_network

TRAINS_PER_TURN = 2.5  # how fast the game's clock runs: trains a seat lays per turn, drawing turns included
CARDS_PER_TURN = 2.0  # C-DRW-1
SURE = 0.95  # the best odds of an unfinished ticket: routes get cut
TRAIN_WORTH = 1.3  # points a train still in hand will bring (a 3- or 4-route pays 1.3 to 1.75 a train, C-CLM-2)
CARD_WORTH = 0.5  # points a card in hand will bring: it pays for part of a route


CUT_ODDS = 0.6  # the odds kept per planned route someone else claimed since: a detour may still exist


def values(state: State, roots: Sequence[Position]) -> list[float]:
    """Each seat's expected final score."""
    if state.finished:
        scored = final_score(state.board, state.player_count, state.route_owner, state.station_owner,
                             [p.tickets for p in state.players])
        return [float(s.total) for s in scored.scores]
    turns = _turns_left(state)
    board = state.board
    owned: list[list[str]] = [[] for _ in state.players]
    for route_id, seat in state.route_owner.items():
        owned[seat].append(route_id)
    longest = [longest_trail((board.routes[r].a, board.routes[r].b, board.routes[r].length) for r in mine)
               for mine in owned]
    top = max(longest, default=0)
    holders = sum(1 for x in longest if x == top) if top else 0
    result: list[float] = []
    for seat, player in enumerate(state.players):
        value = player.score + 4.0 * (board.stations_per_player - player.stations) + _tickets(state, roots[seat], turns)
        value += TRAIN_WORTH * min(player.trains, turns * TRAINS_PER_TURN) + CARD_WORTH * sum(player.hand.values())
        if top and longest[seat] == top:  # who holds it now says little early on: weigh it by the game's progress
            value += board.longest_path_bonus / holders * max(0.0, 1 - turns * TRAINS_PER_TURN / board.trains_per_player)
        result.append(value)
    return result


def _turns_left(state: State) -> float:
    if state.turns_left is not None:
        return state.turns_left / state.player_count
    fewest = min(p.trains for p in state.players)
    return max(0.0, fewest - 2) / TRAINS_PER_TURN + 1


def position_of(state: State, seat: int) -> Position:
    player = state.players[seat]
    return Position(
        map_name=state.board.name, seat=seat, players=state.player_count, trains=player.trains,
        stations_left=state.board.stations_per_player - player.stations,
        claimed=frozenset(state.route_owner.items()), built=frozenset(state.station_owner.items()),
        owner=dict(state.route_owner), station_owner=dict(state.station_owner),
    )


def _tickets(state: State, root: Position, turns: float) -> float:
    seat = root.seat
    player = state.players[seat]
    if not player.tickets:
        return 0.0
    board = state.board
    plan = plan_network(root, tuple(sorted(player.tickets)))
    owner = state.route_owner
    pieces = components((board.routes[r].a, board.routes[r].b) for r, s in owner.items() if s == seat)
    left = [r for r in plan.routes if owner.get(r) != seat]
    cut = sum(1 for r in left if r in owner)
    trains = sum(board.routes[r].length for r in left)
    needed = max(0, trains - sum(player.hand.values())) / CARDS_PER_TURN + len(left) + len(plan.stations)
    odds = SURE if needed <= 0 else min(SURE, turns / needed)
    odds *= CUT_ODDS**cut
    if trains > player.trains:
        odds = 0.0
    value = 0.0
    for ticket_id in plan.kept:
        ticket = board.tickets[ticket_id]
        value += ticket.points if joined(pieces, ticket.a, ticket.b) else ticket.points * (2 * odds - 1)
    return value - sum(board.tickets[t].points for t in plan.lost)
