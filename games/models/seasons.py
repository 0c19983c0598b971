"""A group's seasons and its standings over one (#44 §3): each calendar year, all time, or a
season an owner names with its first and last days; per player over the season's finished
matches, read from the stored results (`Result`, `ResultSum`), never by replaying a match."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db import models
from django.db.models import Count, Q, Sum
from django.urls import reverse
from django.utils import timezone

from games.models.matches import Match
from games.models.results import STAKED, Result, ResultSum

SEASON_NAME_LENGTH = 60
# A season's counts of §12 that the standings add up, besides matches, wins and money.
COUNTS = ("points", "dealt_in", "was_set", "moons_made")


class Season(models.Model):
    """A stretch of days an owner names ("Winter league"): its standings count the group's
    finished matches begun from its first day to its last, both included, in local time."""

    group = models.ForeignKey("Group", models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=SEASON_NAME_LENGTH)
    start = models.DateField()
    end = models.DateField()

    class Meta:
        ordering = ["-start", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(start__lte=models.F("end")), name="season_in_order"),
            models.CheckConstraint(condition=~Q(name=""), name="season_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("games:standings", args=[self.group_id]) + f"?season=s{self.pk}"


def day_start(day: date) -> datetime:
    """The first moment of a local day."""
    return timezone.make_aware(datetime.combine(day, time.min))


@dataclass(frozen=True)
class Span:
    """The matches a season counts: begun from `start` (None: the first) to before `end`
    (None: the last)."""

    start: datetime | None = None
    end: datetime | None = None

    @staticmethod
    def year(year: int) -> Span:
        return Span(day_start(date(year, 1, 1)), day_start(date(year + 1, 1, 1)))

    @staticmethod
    def days(first: date, last: date) -> Span:
        return Span(day_start(first), day_start(last + timedelta(days=1)))


@dataclass
class Standing:
    """A player's season: finished matches played and won, money by currency, and §12's points
    per hand, sets and moons made."""

    player: int
    name: str
    played: int = 0
    won: int = 0
    money: dict[str, int] = field(default_factory=dict)
    points: int = 0
    dealt_in: int = 0
    was_set: int = 0
    moons_made: int = 0

    @property
    def win_rate(self) -> float | None:
        return self.won / self.played if self.played else None

    @property
    def per_hand(self) -> float | None:
        """§12: the average of their score changes over hands dealt in (negative is good)."""
        return self.points / self.dealt_in if self.dealt_in else None


def years(group_id: int) -> list[int]:
    """The calendar years (local) from the group's first match to its last, the latest first
    (at most fifty)."""
    # The first and the last by the group's index of when its matches began: two rows read,
    # where MIN() and MAX() together would read every match of the group.
    when = Match.objects.filter(group=group_id).values_list("played_at", flat=True)
    earliest, latest = when.order_by("played_at").first(), when.order_by("-played_at").first()
    if earliest is None or latest is None:
        return []
    first = timezone.localtime(earliest).year
    last = timezone.localtime(latest).year
    # A match imported with a date long past would list every year since: the latest fifty.
    return list(range(last, max(first, last - 49) - 1, -1))


def _all_time(group_id: int) -> dict[int, Standing]:
    """All time: the players' stored sums (`ResultSum`, a few rows a player), less what their
    matches still going hold of them (a handful of results): as many rows read at 3,000
    matches as at 300."""
    out: dict[int, Standing] = {}
    rows = ResultSum.objects.filter(player__group=group_id).values_list(
        "player", "player__name", "currency", "finished", "won", "staked", "net_cents", *COUNTS
    )
    for player, name, currency, finished, won, staked, net, *counts in rows:
        mine = out.setdefault(player, Standing(player, name))
        mine.played += finished
        mine.won += won
        if staked:
            mine.money[currency] = mine.money.get(currency, 0) + net
        for name_, value in zip(COUNTS, counts, strict=True):
            setattr(mine, name_, getattr(mine, name_) + value)
    # The matches going first, by their own index (`match_going`): joined to the results, a
    # database may read every result of the group to find the few of them.
    going_ids = Match.objects.filter(group=group_id).in_progress().order_by()
    ids = list(going_ids.values_list("pk", flat=True))
    going = (
        Result.objects.filter(match__in=ids)
        .values_list("player")
        .annotate(**{f"n_{name}": Sum(name) for name in COUNTS})
        .order_by()
    )
    for player, *counts in going:
        if player in out:
            mine = out[player]
            for name_, value in zip(COUNTS, counts, strict=True):
                setattr(mine, name_, getattr(mine, name_) - value)
    return {pk: s for pk, s in out.items() if s.played}


def _over(group_id: int, span: Span) -> dict[int, Standing]:
    """A stretch of days: the results of the group's finished matches begun in it, summed by
    the database (the matches found by the group's index of when they began)."""
    results = Result.objects.filter(match__group=group_id, match__finished__isnull=False)
    if span.start is not None:
        results = results.filter(match__played_at__gte=span.start)
    if span.end is not None:
        results = results.filter(match__played_at__lt=span.end)
    out: dict[int, Standing] = {}
    rows = (
        results.values_list("player", "player__name")
        .annotate(
            n_played=Count("pk"),
            n_won=Count("pk", filter=Q(won=True)),
            **{f"n_{n}": Sum(n) for n in COUNTS},
        )
        .order_by()
    )
    for player, name, played, won, *counts in rows:
        out[player] = Standing(player, name, played, won, {}, *counts)
    money = results.filter(STAKED).values_list("player", "match__currency")
    for player, currency, net in money.annotate(net=Sum("net_cents")).order_by():
        out[player].money[currency] = net
    return out


def standings(group_id: int, span: Span | None) -> tuple[list[Standing], list[str]]:
    """The standings over `span` (None: all time), and the currencies played for in it: the
    players with a finished match in it, by money (the currency most played for first, then
    the others), then wins, then name."""
    found = _all_time(group_id) if span is None else _over(group_id, span)
    rows = list(found.values())
    weight: dict[str, int] = {}
    for s in rows:
        for currency in s.money:
            weight[currency] = weight.get(currency, 0) + 1
    currencies = sorted(weight, key=lambda c: (-weight[c], c))
    rows.sort(key=lambda s: (*(-s.money.get(c, 0) for c in currencies), -s.won, s.name, s.player))
    return rows, currencies
