"""Private games' invitations (docs/API.md, Playing by day): a token seats whoever holds it, once.

A private game has one link at a time (an invitation to nobody in particular, which its creator passes on);
when it seats someone and seats are still free, a new link replaces it. The creator may also invite a person
by name: that token is theirs alone, and reaches them as an `invitation` notification. A used token is refused
(`invite_used`), so a forwarded link cannot seat a second person. When its creator's account is erased
(games/staff/erasure.py) the game's unused invitations are withdrawn (`withdraw`): a token of theirs is then refused as
`invite_invalid`.
"""

from __future__ import annotations

import secrets

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.people import accounts, inbox
from games.people.models import Notification
from games.play.models import Invitation
from games.store.models import Game, GameId, map_name
from games.store.service_error import ServiceError


def new_link(game: Game) -> Invitation:
    return Invitation.objects.create(game=game, token=secrets.token_urlsafe(24))


def withdraw(game: Game) -> None:
    """Withdraw the game's unused invitations (its link and those sent by name, with their `invitation`
    notifications, which carry the token); used ones stay, the record of who joined by which."""
    unused = Invitation.objects.filter(game=game, used_at__isnull=True)
    invitees = [pk for pk in unused.values_list("invitee_id", flat=True) if pk is not None]
    Notification.objects.filter(kind="invitation", game=game, user_id__in=invitees).delete()
    unused.delete()


def link_token(game: Game) -> str | None:
    """The token of the game's unused link, while the game is open."""
    if not game.private or game.status != Game.Status.OPEN or all(seat.taken for seat in game.seats.all()):
        return None
    link = Invitation.objects.filter(game=game, invitee__isnull=True, used_at__isnull=True).order_by("-pk").first()
    return link.token if link else None


def invite(game_id: GameId, user: User, username: str) -> Invitation:
    """The creator invites the person named `username`: their own token, sent as a notification."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.created_by_id != user.pk:
            raise ServiceError("not_creator", "only the game's creator invites people", status=403)
        if game.status != Game.Status.OPEN:
            raise ServiceError("not_open", "the game has already started", status=409)
        invitee = accounts.user_named(username)
        if invitee is None or hasattr(invitee, "bot_account"):
            raise ServiceError("not_found", f"nobody is called {username}", status=404, field="username")
        if game.seats.filter(user=invitee).exists():
            raise ServiceError("already_seated", f"{invitee.username} already has a seat in this game", status=409)
        invitation = Invitation.objects.filter(game=game, invitee=invitee, used_at__isnull=True).first()
        if invitation is None:
            invitation = Invitation.objects.create(game=game, invitee=invitee, token=secrets.token_urlsafe(24))
            inbox.send(
                invitee.pk, "invitation", f"{game.pk}:{invitee.pk}",
                f"{user.username} invites you to a {game.players}-player {map_name(game.map)} game.", game.pk,
                token=invitation.token, by=user.username,
            )
    return invitation


def redeem(game: Game, user: User, token: str) -> None:
    """Use `token` to seat `user` in `game` (locked by the caller's transaction); refuses a used or foreign one."""
    invitation = Invitation.objects.select_for_update().filter(game=game, token=token).first()
    if invitation is None:
        raise ServiceError("invite_invalid", "this invitation is not for this game", status=403, field="invite")
    if invitation.used_at is not None:
        raise ServiceError("invite_used", "this invitation has already seated someone", status=409, field="invite")
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        raise ServiceError("invite_invalid", "this invitation is for someone else", status=403, field="invite")
    invitation.used_by, invitation.used_at = user, timezone.now()
    invitation.save(update_fields=["used_by", "used_at"])
    if invitation.invitee_id is None:
        new_link(game)
