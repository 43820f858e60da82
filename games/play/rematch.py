"""Rematch (docs/API.md, Playing by day): after a finished game any of its people offers to play again; the same
call by each other person accepts. When every person has accepted, the new game starts at once: the same map,
time control and seats (the same people in the same seats, the same bots), the next seat playing first. Nobody
offers, accepts or is seated past their cap of games (games/play/game_caps.py: 409 `too_many_games`)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from games.people import inbox
from games.play import game_caps, services
from games.play.models import RematchOffer
from games.store import states
from games.store.models import Game, GameId, map_name
from games.store.service_error import ServiceError


def rematch(game_id: GameId, user: User) -> RematchOffer:
    """Offer a rematch of the finished game, or accept the offer standing; starts it once everyone has."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != Game.Status.FINISHED:
            raise ServiceError("not_finished", "a rematch is offered once the game is over", status=409)
        # An erased person (games/staff/erasure.py) is not waited for: the game's fallback bot takes their seat (_start).
        people = {seat.user.pk: seat for seat in game.seat_list if seat.user is not None and seat.user.is_active}
        if user.pk not in people:
            raise ServiceError("not_a_player", "you have no seat in this game", status=403)
        offer, created = RematchOffer.objects.get_or_create(finished=game, defaults={"by": user})
        if offer.game_id is None:
            game_caps.check_room(user, game.speed)  # refused: the offer, or the acceptance, is undone with the rest
            offer.accepted_by.add(user)
            accepted = set(offer.accepted_by.values_list("pk", flat=True))
            if created:
                for other in people.keys() - {user.pk}:
                    inbox.send(
                        other, "rematch_offered", f"{game.pk}:{other}",
                        f"{user.username} offers a rematch of your {map_name(game.map)} game.", game.pk, by=user.username,
                    )
            if accepted >= people.keys():
                if game_caps.full(people.keys() - {user.pk}, game.speed):  # one filled up after accepting
                    raise ServiceError(
                        "too_many_games", "a player of this game already plays as many games as one person may: the "
                        "rematch starts once they have room", status=409, limit=game_caps.cap(game.speed),
                    )
                offer.game = _start(game)
                offer.save(update_fields=["game"])
    return RematchOffer.objects.select_related("by").prefetch_related("accepted_by").get(finished=game)


def _start(game: Game) -> Game:
    first = states.state_at(game.pk, 1).first_seat
    seats: list[User | str] = [
        seat.user if seat.user is not None and seat.user.is_active else (seat.bot or game.fallback_bot)
        for seat in game.seats.select_related("user")
    ]
    new = services.game_form(
        seats, map_name=game.map, ranked=game.ranked, clock=services.TimeControl.of(game),
        fallback_bot=game.fallback_bot, private=game.private, first_seat=(first + 1) % game.players, rematch_of=game,
    )
    for seat in new.seat_list:
        if seat.user_id:
            text = f"Your {map_name(game.map)} rematch has started: choose your tickets."
            inbox.send(seat.user_id, "game_formed", f"{new.pk}:{seat.user_id}", text, new.pk)
    return new
