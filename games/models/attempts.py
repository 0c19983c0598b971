"""Sign-up and reset mails, counted for throttling (games.throttles)."""

from __future__ import annotations

from django.db import models


class Attempt(models.Model):
    """One sign-up or reset mail, counted against its address or account for an hour
    (games.throttles.allow), and forgotten after."""

    action = models.CharField(max_length=16)
    key = models.CharField(max_length=255)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["action", "key", "at"], name="attempt_recent")]

    def __str__(self) -> str:
        return f"{self.action} by {self.key} at {self.at:%Y-%m-%d %H:%M}"
