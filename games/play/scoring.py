"""Scoring an ended game, once: the `game_scored` event and, for a ranked game, the rating changes.

`game_score_and_rate` is what the `score_game` task runs: queued after the commit that ends the game, and again
by the sweep while the game is unscored. The game row is locked and the event appended at the game's seq in the
same transaction as the ratings, so however often and however concurrently it runs, the game is scored and rated
exactly once. A game whose log already holds its score (a `game_scored` event, or an old-shape `game_ended` with
the score inside) is left alone.
"""

from __future__ import annotations

from celery import shared_task
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from games.engine import Event, State, evolve, score_ended
from games.engine.events import ABORTED, GameScored
from games.people import inbox
from games.play import ratings
from games.play.models import RatingChange
from games.store import event_log, notify, states
from games.store.models import Game, GameId, map_name
from games.trust import chance, signing

# Sent in the scoring transaction once a game is scored (`scored`: its GameScored) or found aborted (`scored` None):
# what sits above this layer and counts games (games/tournaments/) hears of it without this layer knowing it.
game_over = Signal()


@shared_task(ignore_result=True, acks_late=True)
def score_game(game_id: str) -> bool:
    return game_score_and_rate(game_id)


def game_score_and_rate(game_id: GameId) -> bool:
    """Score the ended game `game_id`; False when there is nothing to do (not ended, or scored already)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != Game.Status.FINISHED:
            return False
        state = states.state_at(game.pk, game.seq)
        if state.scores or state.end_reason == ABORTED:  # scored already (or an old log with the score in
            # game_ended), or aborted by an operator (never scored, never rated): say so to the sweep
            if Game.objects.filter(pk=game.pk, scored_at__isnull=True).update(scored_at=timezone.now()) and not state.scores:
                game_over.send(sender=Game, game=game, scored=None)
            return False
        scored = score_ended(state)
        # A provably fair game's server seed, now that nothing is hidden any more; the score stays the last word.
        appended: list[Event] = [*chance.revealed(game), scored]
        rows = event_log.append(game, game.seq, appended)
        Game.objects.filter(pk=game.pk).update(scored_at=rows[-1].created_at)
        if game.ranked:
            ratings.rate_game(game, places=rated_places(game, scored=scored), at=rows[-1].created_at)
        signing.sign(game)  # the final seq and head, signed: this log is the one the server holds
        _tell_players(game, scored)
        game_over.send(sender=Game, game=game, scored=scored)
        new_state = state
        for event in appended:
            new_state = evolve(new_state, event)
        new_seq = game.seq
        transaction.on_commit(lambda: _after_scoring(game.pk, new_seq, new_state))
    return True


def rated_places(game: Game, *, scored: GameScored) -> dict[int, int]:
    """Each seat's place for the ratings: the score's places, with players who resigned after everyone else."""
    resigned = {seat.number for seat in game.seat_list if seat.stand_in}
    stayed = {s.seat: s.place for s in scored.scores if s.seat not in resigned}
    places = {seat: 1 + sum(1 for other in stayed.values() if other < place) for seat, place in stayed.items()}
    places.update(dict.fromkeys(resigned, len(stayed) + 1))
    return places


def _tell_players(game: Game, scored: GameScored) -> None:
    """A `game_ended` notification to each person of the game: their place, and their rating change if ranked."""
    changes = {change.user_id: change for change in RatingChange.objects.filter(game=game)}
    places = {score.seat: score for score in scored.scores}
    for seat in game.seat_list:
        if not seat.user_id or seat.number not in places:
            continue
        score = places[seat.number]
        place = f"{_ordinal(score.place)} of {game.players} with {score.total} points"
        text = f"Your {map_name(game.map)} game is over: {place}."
        data: dict[str, int | float] = {"place": score.place, "points": score.total}
        if (change := changes.get(seat.user_id)) is not None:
            before = ratings.shown(change.mu_before, change.sigma_before)
            after = ratings.shown(change.mu_after, change.sigma_after)
            text += f" Rating {before:.1f} → {after:.1f}."
            data.update(rating_before=round(before, 2), rating_after=round(after, 2))
        inbox.send(seat.user_id, "game_ended", f"{game.pk}:{seat.user_id}", text, game.pk, **data)


def _ordinal(place: int) -> str:
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place if place < 20 else place % 10, 'th')}"


def _after_scoring(game_id: GameId, seq: int, state: State) -> None:
    states.remember(game_id, seq, state)
    notify.game_moved(game_id, seq)

