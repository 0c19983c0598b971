"""The players of a group, by name, what renaming or merging one moves, and which player a
member is ("this is me")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypedDict

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from games import rules, words
from games.models.groups import Group, groups_turn
from games.models.hands import Hand, Play
from games.models.ledger import Payment
from games.models.matches import Match, Seat
from games.models.nights import balance_nets
from games.models.results import Result
from games.models.sums import keep_transfers, recount_sums


class Totals(TypedDict):
    """A player's matches played, finished and won, and their money by currency."""

    played: int
    finished: int
    won: int
    money: dict[str, int]


class Player(models.Model):
    group = models.ForeignKey("Group", models.CASCADE, related_name="players")
    name = models.CharField(max_length=rules.NAME_LENGTH)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["group", "name"], name="player_name_unique"),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("games:player_detail", args=[self.pk])

    def get_matches_url(self) -> str:
        return reverse("games:match_list") + f"?player={self.pk}"

    def totals(self) -> Totals:
        """Matches played, finished and won, and money by currency, from their stored sums."""
        summed = self.result_sums.summed()
        stats = summed.stats
        return Totals(
            played=stats["played"], finished=stats["finished"], won=stats["won"], money=summed.money
        )

    def balance(self) -> dict[str, int]:
        """Their balance in each currency, as `group_balances` has it, read for them alone."""
        mine = Payment.objects.filter(Q(payer=self) | Q(payee=self))
        nets = balance_nets(self.result_sums.nets(), mine)
        return {c: net[self.name] for c, net in nets.items() if self.name in net}

    def clean(self) -> None:
        """The admin's check: a name any page shows as typed (rules.plain_text), and one
        person, in whatever capitals and spaces."""
        if not rules.plain_text(self.name):
            raise ValidationError({"name": rules.PLAIN_NAME})
        if self.group_id is None or not self.name:
            return
        players = Player.objects.filter(group=self.group_id).exclude(pk=self.pk)
        other = same_person(players, self.name)
        if other is not None:
            message = f"There is already a player called {other.name}."
            raise ValidationError({"name": message})

    @transaction.atomic
    def rename(self, name: str) -> None:
        """A new spelling of their name in every match; the hands follow (they name players by
        their row), so every match replays to the same scores. RuleError if it is taken."""
        name = name.strip()
        if not name:
            raise rules.RuleError("bad_table", "A player needs a name.", "name")
        if len(name) > rules.NAME_LENGTH:
            raise rules.RuleError(
                "bad_table", f"Keep a name to {rules.NAME_LENGTH} letters.", "name"
            )
        if not rules.plain_text(name):
            raise rules.RuleError("bad_table", rules.PLAIN_NAME, "name")
        # Renames and merges take turns, and their matches take no hand meanwhile.
        groups_turn(self.group_id)
        _matches_turn(Seat.objects.filter(player=self).values("match"))
        _still_here(self)
        other = same_person(Player.objects.filter(group=self.group_id).exclude(pk=self.pk), name)
        if other is not None:
            raise rules.RuleError(
                "bad_table",
                f"There is already a player called {other.name}. If that is the same person, "
                "merge the two instead.",
                "name",
            )
        self.name = name
        self.save(update_fields=["name"])
        # A night's players come by name where they began together: its transfers are kept
        # for that order (a night whose order moved is searched here, not by a page).
        keep_transfers(set(self.night_sums.values_list("night_id", flat=True)))

    @transaction.atomic
    def merge(self, other: Player) -> int:
        """Take `other` in as another spelling of this player: their seats, hands and results
        become this player's and `other` is gone. Returns how many matches moved over.

        Refused (RuleError) when both sat at one match: that match had two people.
        """
        if other.pk == self.pk or other.group_id != self.group_id:
            raise rules.RuleError("bad_table", "Choose another of your players.", "other")
        groups_turn(self.group_id)  # no new match takes `other` in meanwhile
        _still_here(self, other)
        # Their matches take no hand while they change hands (the write lock of `writes._store`).
        locked = _matches_turn(Seat.objects.filter(player=other).values("match"))
        both = Match.objects.filter(pk__in=locked, seats__player=self).order_by("played_at").first()
        if both is not None:
            local = timezone.localtime(both.played_at)
            when = f"{local:%-d %B %Y}, {words.clock(local)}"
            raise rules.RuleError(
                "bad_table",
                f"{self.name} and {other.name} both played in the match of {when}, so they "
                "are two people: they can't be merged.",
                "other",
            )
        between = Q(payer=self, payee=other) | Q(payer=other, payee=self)
        if Payment.objects.filter(between).exists():
            raise rules.RuleError(
                "bad_table",
                f"{self.name} and {other.name} paid each other, so they are two people: they "
                "can't be merged.",
                "other",
            )
        Payment.objects.filter(payer=other).update(payer=self)
        Payment.objects.filter(payee=other).update(payee=self)
        Seat.objects.filter(player=other).update(player=self)
        Play.objects.filter(player=other).update(player=self)
        Hand.objects.filter(maker=other).update(maker=self)
        Result.objects.filter(player=other).update(player=self)
        other.delete()  # and its sums with it
        recount_sums([self.pk])
        return len(locked)


@transaction.atomic
def claim_player(group: Group, user: User, player: Player | None) -> None:
    """ "This is me": `user` is `player` at the group's table (None: nobody). In the
    group's turn, so that of two members saying it of one player at once the second is
    told who has it (ValidationError, in words); also for a player merged away, or a
    member taken out of the group, meanwhile."""
    groups_turn(group.pk)
    if player is not None and not group.players.filter(pk=player.pk).exists():
        raise ValidationError(
            f"{player.name} is no longer a player of this group: merged into another "
            "player on another phone. Choose again."
        )
    if player is not None:
        taken = group.memberships.filter(player=player).exclude(user=user)
        who = taken.values_list("user__username", flat=True).first()
        if who is not None:
            raise ValidationError(f"{who} has said they are {player.name}.")
    try:
        with transaction.atomic():  # the unique constraint, should a write skip the turn
            changed = group.memberships.filter(user=user).update(player=player)
    except IntegrityError:
        raise ValidationError(
            f"Someone else has said they are {player.name if player else 'that player'}."
        ) from None
    if not changed:
        raise ValidationError(f"You are no longer in {group}.")


def same_person(players: Iterable[Player], name: str) -> Player | None:
    """The player of `players` whose name is `name` as a person: in any capitals and spaces
    (rules.name_key)."""
    key = rules.name_key(name)
    return next((p for p in players if rules.name_key(p.name) == key), None)


def seat_players(group: Group, names: Iterable[str]) -> list[Player]:
    """The group's player for each name, in order: the one saved under that name in any
    capitals and spaces (its first spelling kept), or a new one."""
    saved = {rules.name_key(p.name): p for p in Player.objects.filter(group=group)}
    return [
        saved.get(rules.name_key(name)) or Player.objects.create(group=group, name=name)
        for name in names
    ]


def _still_here(*players: Player) -> None:
    """Refuse to change a player merged into another since the page was read (the group's
    turn taken, none can go meanwhile)."""
    here = set(Player.objects.filter(pk__in=[p.pk for p in players]).values_list("pk", flat=True))
    for player in players:
        if player.pk not in here:
            raise rules.RuleError(
                "bad_table", f"{player.name} was just merged into another player.", "other"
            )


def _matches_turn(matches: QuerySet[Seat, Mapping[str, object]]) -> list[int]:
    """Lock these matches' rows until the transaction ends, as a write to their hands does
    (`writes._locked`), so that a rename or a merge and a save take turns; in the order of
    their ids, so that two of them wait for each other rather than deadlock. (On SQLite the
    IMMEDIATE transaction already does this.) Returns their ids."""
    locked = Match.objects.select_for_update().filter(pk__in=matches).order_by("pk")
    return list(locked.values_list("pk", flat=True))
