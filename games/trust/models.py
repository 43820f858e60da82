"""Signed checkpoints of finished games (games/trust/signing.py, docs/CHECKPOINTS.md)."""

from __future__ import annotations

from django.db import models

from games.store.models import Game


class Checkpoint(models.Model):
    """A finished game's record, signed: its id, final seq and head hash under one of the server's Ed25519 keys
    (games/signing.py, docs/CHECKPOINTS.md). Written once the game is scored; never changed."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="checkpoint")
    seq = models.PositiveIntegerField()
    head_hash = models.CharField(max_length=64)
    key_id = models.CharField(max_length=64)
    signature = models.CharField(max_length=128)  # base64 of the 64-byte Ed25519 signature
    signed_at = models.DateTimeField(auto_now_add=True)
