"""Erasure's hand-over (DELETE /api/me, games/staff/privacy.py): nothing the erased person was part of waits for them.

`hand_over(user)` runs in the erasure's transaction, before the account is anonymised, so a failure leaves all of it
undone. Their queue entry goes first (locked: a matchmaker's run seating it just then finishes, and its table is
handled below). A seat in a game not yet started is left, free again. A seat in a game in play is resigned, as a
person resigns (`seat_resigned`): the game's fallback bot decides for it from then on, the ticket choice and daily
games included, its task queued after the commit when it decides now. A game they created and that has not started
passes to the person in its lowest seat, its unused invitations withdrawn (the link, and those sent by name with
their notifications) and a new link made for a private game; with nobody else seated it is deleted: it has no log
yet, and nobody could start it. They withdraw from every tournament not over (T-PTS-4: their results stay). A
rematch of their finished games that has not formed a game is withdrawn: it would seat them, a person whom nobody
plays.
"""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.models import User

from games.lobby.models import QueueEntry
from games.play import invitations, services
from games.play.models import RematchOffer
from games.store.models import Game, GameId, Seat
from games.tournaments import services as tournaments
from games.tournaments.models import Entry, Tournament


def hand_over(user: User) -> None:
    """Free, resign or pass on everything `user` takes part in (see the module); in the caller's transaction."""
    QueueEntry.objects.select_for_update().filter(user=user).delete()  # waits for a run seating the row
    for game_id in _unfinished_games_seating(user):
        _leave(game_id, user)
    for tournament_id in _tournaments_playing(user):  # their games there resigned just above
        tournaments.tournament_withdraw(tournament_id, user)
    for game_id in Game.objects.filter(created_by=user, status=Game.Status.OPEN).values_list("pk", flat=True):
        _pass_on(game_id, user)
    RematchOffer.objects.filter(finished__seats__user=user, game__isnull=True).delete()


def _unfinished_games_seating(user: User) -> list[GameId]:
    # read after the queue entry's lock: a table the matchmaker formed for them meanwhile is among these
    games = Seat.objects.filter(user=user).exclude(game__status=Game.Status.FINISHED)
    return list(games.order_by("game_id").values_list("game_id", flat=True))  # one order: no deadlock between two


def _tournaments_playing(user: User) -> list[UUID]:
    entries = Entry.objects.filter(user=user, withdrawn=False).exclude(tournament__status=Tournament.Status.FINISHED)
    return list(entries.values_list("tournament_id", flat=True))


def _leave(game_id: GameId, user: User) -> None:
    """Free the seat of a game not started, or resign it in a game in play (as it stands once locked)."""
    game = Game.objects.select_for_update().get(pk=game_id)
    seat = Seat.objects.get(game=game, user=user)
    if game.status == Game.Status.OPEN:
        seat.user, seat.client_seed, seat.seen_seq = None, "", 0
        seat.save(update_fields=["user", "client_seed", "seen_seq"])
    elif game.status == Game.Status.ACTIVE and not seat.stand_in:
        services.game_resign(game.pk, user=user)  # the lock is ours already: it cannot have ended meanwhile


def _pass_on(game_id: GameId, user: User) -> None:
    """The game `user` created and that has not started: to the person in its lowest seat, or gone."""
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.status != Game.Status.OPEN:
        return
    invitations.withdraw(game)
    heir = game.seats.filter(user__isnull=False).exclude(user=user).order_by("number").first()
    if heir is None:
        game.delete()  # its seats, invitations, notifications and chat with it; an open game has no events
        return
    Game.objects.filter(pk=game.pk).update(created_by=heir.user_id)
    if game.private:
        invitations.new_link(game)
