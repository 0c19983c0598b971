"""How a player of a group likes to be paid (#44 §1): their names on Venmo, PayPal.me and
Cash App and a free line, given by the member who plays as them (or an owner) and shown to the
group's members only, as buttons on the transfers they are paid by."""

from __future__ import annotations

from django.db import models, transaction
from django.urls import reverse

from games import payways
from games.models.groups import groups_turn
from games.models.players import Player


class PayWays(models.Model):
    """A player's ways to be paid; gone with the player (a merge keeps the one merged into)."""

    player = models.OneToOneField("Player", models.CASCADE, related_name="pay_ways")
    venmo = models.CharField(max_length=30, blank=True)
    paypal = models.CharField(max_length=20, blank=True)
    cashapp = models.CharField(max_length=20, blank=True)
    other = models.CharField(max_length=payways.OTHER_LENGTH, blank=True)
    changed = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"How {self.player} is paid"

    def get_absolute_url(self) -> str:
        return reverse("games:group_detail", args=[self.player.group_id]) + "#pay-title"

    def names(self) -> dict[str, str]:
        """Their name on each service given, by service."""
        return {s: getattr(self, s) for s in payways.SERVICES if getattr(self, s)}

    @staticmethod
    def of_group(group_id: int) -> dict[str, PayWays]:
        """The ways of the group's players, by player name."""
        rows = PayWays.objects.filter(player__group=group_id).select_related("player")
        return {w.player.name: w for w in rows}

    @staticmethod
    def store(group_id: int, player_id: int, values: dict[str, str]) -> bool:
        """Set a player's ways (`values`, cleaned, by field), or remove them where all are
        empty, in the group's turn (its pages show them): False if the player is gone from
        the group meanwhile (merged away). Group.DoesNotExist if the group is."""
        with transaction.atomic():
            groups_turn(group_id)
            if not Player.objects.filter(pk=player_id, group=group_id).exists():
                return False
            if not any(values.values()):
                PayWays.objects.filter(player=player_id).delete()
                return True
            PayWays.objects.update_or_create(player_id=player_id, defaults=values)
            return True
