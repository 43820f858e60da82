"""Use cases that change games: create, join, seat a bot, start, play a person's move, resign.

Each is one transaction. A move is played by games/play/moves.py (load the state, let the engine decide, append
the events at `expected_seq`); a person's move then wakes the bots that decide next (games/play/bot_turns.py).
Side effects (cache update, realtime notification, queueing a bot) run only after the commit
(`transaction.on_commit`), so nobody hears of a move that did not happen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import Move, begin
from games.engine.events import SeatResigned
from games.play import bot_turns, game_caps, invitations, moves
from games.play.moves import Played
from games.store import event_log, states
from games.store.models import BOT_LEVELS, Game, GameId, Seat
from games.store.service_error import ServiceError
from games.store.viewers import seat_of
from games.trust import chance, signing
from games.trust.models import Checkpoint


@dataclass(frozen=True)
class TimeControl:
    """A game's clock (docs/API.md, Playing by day): live with `turn_seconds` (None: no clock), or daily."""

    speed: str = "live"
    turn_seconds: int | None = None
    days_per_move: int | None = None
    bank_days: int | None = None

    @classmethod
    def of(cls, game: Game) -> TimeControl:
        return cls(game.speed, game.turn_seconds, game.days_per_move, game.bank_days)


def game_create(
    user: User, *, map_name: str, players: int, ranked: bool = False, clock: TimeControl | None = None,
    fallback_bot: str = "greedy", private: bool = False, spectators_at_table: bool = False, client_seed: str = "",
) -> Game:
    """An open game on `map_name` for `players`, `user` in its first seat (`clock` None: live, no clock).
    `client_seed`: that seat's own seed (hex, X-RNG-2), as `game_join` takes a joiner's."""
    clock = clock or TimeControl()
    seed = chance.client_seed(client_seed)
    with transaction.atomic():
        game_caps.person_locked(user)
        game_caps.check_room(user, clock.speed)
        game = Game.objects.create(
            map=map_name, players=players, ranked=ranked, turn_seconds=clock.turn_seconds, fallback_bot=fallback_bot,
            speed=clock.speed, days_per_move=clock.days_per_move, bank_days=clock.bank_days, private=private,
            created_by=user, server_seed=chance.new_server_seed(), spectators_at_table=spectators_at_table,
        )
        Seat.objects.bulk_create(
            [Seat(game=game, number=n, user=user, client_seed=seed) if n == 0 else Seat(game=game, number=n)
             for n in range(players)]
        )
        if private:
            invitations.new_link(game)
    return game


def game_form(
    seats: Sequence[User | str], *, map_name: str, ranked: bool, clock: TimeControl, fallback_bot: str = "greedy",
    private: bool = False, first_seat: int | None = None, rematch_of: Game | None = None,
) -> Game:
    """Create and start a game for a table that is already complete (the queue's, a rematch's), in the caller's
    transaction. `seats`: by seat number, a user or a bot's level; the first user creates it. `first_seat`: who
    plays first (None: drawn)."""
    people = [taker for taker in seats if not isinstance(taker, str)]
    game = Game.objects.create(
        map=map_name, players=len(seats), ranked=ranked, turn_seconds=clock.turn_seconds, speed=clock.speed,
        days_per_move=clock.days_per_move, bank_days=clock.bank_days, fallback_bot=fallback_bot, private=private,
        created_by=people[0], rematch_of=rematch_of, server_seed=chance.new_server_seed(),
    )
    Seat.objects.bulk_create(
        [
            Seat(game=game, number=n, bot=taker) if isinstance(taker, str) else Seat(game=game, number=n, user=taker)
            for n, taker in enumerate(seats)
        ]
    )
    _begin(game, first_seat, tell=False)  # its people hear of it as `game_formed`, which says what to do first
    return game


def _locked_open_game(game_id: GameId) -> Game:
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.status != Game.Status.OPEN:
        raise ServiceError("not_open", "the game has already started", status=409)
    return game


def _free_seat(game: Game, seat_number: int | None) -> Seat:
    seats = list(game.seats.select_for_update().order_by("number"))
    if seat_number is None:
        free = [s for s in seats if not s.taken]
        if not free:
            raise ServiceError("game_full", "every seat is taken", status=409)
        return free[0]
    if not 0 <= seat_number < len(seats):
        raise ServiceError("no_such_seat", f"this game's seats are 0 to {len(seats) - 1}", status=409, field="seat")
    if seats[seat_number].taken:
        raise ServiceError("seat_taken", f"seat {seat_number} is taken", status=409)
    return seats[seat_number]


def game_join(
    game_id: GameId, *, user: User, seat: int | None = None, invite: str | None = None, client_seed: str = ""
) -> Game:
    """Seat `user` (`seat` None: in the first free seat); a private game seats only the holder of an unused
    invitation (games/play/invitations.py). `client_seed`: the seat's own seed (hex, X-RNG-2)."""
    seed = chance.client_seed(client_seed)
    with transaction.atomic():
        game_caps.person_locked(user)  # before the game's lock, in the order an erasure takes them
        game = _locked_open_game(game_id)
        if game.seats.filter(user=user).exists():
            raise ServiceError("already_seated", "you already have a seat in this game", status=409)
        free = _free_seat(game, seat)
        if invite is not None:
            invitations.redeem(game, user, invite)
        elif game.private:
            raise ServiceError("invite_required", "a private game seats only those it invites", status=403, field="invite")
        game_caps.check_room(user, game.speed)  # after the 403s: one who may not sit here is told that first
        free.user, free.client_seed = user, seed
        try:
            free.save(update_fields=["user", "client_seed"])
        except IntegrityError as error:
            raise ServiceError("seat_taken", "that seat was just taken", status=409) from error
    return game


def game_add_bot(game_id: GameId, *, user: User, level: str, seat: int | None = None) -> Game:
    """The creator `user` seats a bot of `level` (`seat` None: in the first free seat)."""
    if level not in BOT_LEVELS:
        raise ServiceError("invalid", f"level must be one of {BOT_LEVELS}", field="level")
    with transaction.atomic():
        game = _locked_open_game(game_id)
        if game.created_by_id != user.pk:
            raise ServiceError("not_creator", "only the game's creator seats bots", status=403)
        free = _free_seat(game, seat)
        free.bot = level
        free.save(update_fields=["bot"])
    return game


def game_start(game_id: GameId, *, user: User, fill_with_bots: str | None = None, client_seed: str = "") -> Game:
    """The creator `user` starts the game, its empty seats filled with bots of `fill_with_bots` (None: none may be
    empty). `client_seed`: the creator's seat's own seed (hex, X-RNG-2), if given now."""
    if fill_with_bots is not None and fill_with_bots not in BOT_LEVELS:
        raise ServiceError("invalid", f"fill_with_bots must be one of {BOT_LEVELS}", field="fill_with_bots")
    seed = chance.client_seed(client_seed)
    with transaction.atomic():
        game = _locked_open_game(game_id)
        if game.created_by_id != user.pk:
            raise ServiceError("not_creator", "only the game's creator starts it", status=403)
        if seed:
            game.seats.filter(user=user).update(client_seed=seed)
        empty = [seat for seat in game.seats.select_for_update() if not seat.taken]
        if empty and fill_with_bots is None:
            raise ServiceError("seats_empty", f"{len(empty)} seat(s) are empty", status=409)
        for seat in empty:
            seat.bot = fill_with_bots
            seat.save(update_fields=["bot"])
        game.__dict__.pop("seat_list", None)  # the seats as filled just above
        _begin(game)
    return game


def _begin(game: Game, first_seat: int | None = None, *, tell: bool = True) -> None:
    """Deal and start `game` (its seats filled), in the caller's transaction; `tell`: a `your_turn` to each
    person of a daily game (the setup's ticket choice)."""
    drawn = first_seat is None
    state, events = begin(
        game.map, game.players, chance.draws(game, None), first_seat=first_seat,
        committed=chance.committed(game, first_seat_drawn=drawn),
    )
    event_log.append(game, 0, events)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ACTIVE, started_at=timezone.now())
    Seat.objects.filter(game=game).update(seen_seq=game.seq)  # the deal is no news: /api/me/games counts moves
    game.status = Game.Status.ACTIVE
    new_seq, bot_seats = game.seq, game.bot_seats
    if tell:
        moves.tell_turns(game, None, state)
    transaction.on_commit(lambda: bot_turns.settle_and_wake(game.pk, new_seq, state, bot_seats=bot_seats))


def game_play(game: Game, *, user: User, expected_seq: int, move: Move) -> Played:
    """Play `move` for the user's seat; raises ServiceError, StaleSeq or the engine's IllegalMove."""
    seat = seat_of(game, user)
    if seat is None:
        raise ServiceError("not_a_player", "you have no seat in this game", status=403)
    if seat in game.bot_seats:  # resigned: the stand-in bot plays it (the seq check stops a resign racing this)
        raise ServiceError("resigned", "you have left this game: its fallback bot plays your seat", status=403)
    return bot_turns.play_for(game, seat=seat, expected_seq=expected_seq, move=move)


def game_resign(game_id: GameId, *, user: User) -> Game:
    """The user leaves the game: the game's fallback bot plays their seat from now on (`seat_resigned`)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != Game.Status.ACTIVE:
            raise ServiceError("not_active", f"the game is {game.status}: only an active game can be left", status=409)
        seat = next((s for s in game.seat_list if s.user_id == user.pk), None)
        if seat is None:
            raise ServiceError("not_a_player", "you have no seat in this game", status=403)
        if seat.stand_in:
            raise ServiceError("already_resigned", "you have already left this game", status=409)
        seat.stand_in = game.fallback_bot
        seat.save(update_fields=["stand_in"])
        state = states.state_at(game.pk, game.seq)
        event_log.append(game, game.seq, [SeatResigned(seat=seat.number, bot=game.fallback_bot)])
        new_seq = game.seq
        transaction.on_commit(lambda: bot_turns.settle_and_wake(game.pk, new_seq, state, bot_seats=game.bot_seats))
    return game


def mark_seen(game_id: GameId, *, seat: int | None, seq: int) -> None:
    """The seat's player has seen the game up to `seq`, by its GET /state or its socket (/api/me/games counts the
    events after it). Nothing for a spectator or an open game."""
    if seat is not None and seq > 0:
        Seat.objects.filter(game_id=game_id, number=seat, seen_seq__lt=seq).update(seen_seq=seq)


def game_checkpoint(game: Game) -> Checkpoint:
    """The signed checkpoint of a finished, scored game (signed now if the game was scored before checkpoints)."""
    if game.status != Game.Status.FINISHED or game.scored_at is None:
        raise ServiceError("not_finished", "a game is signed once it is over and scored", status=409)
    return signing.sign(game)
