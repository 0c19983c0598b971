"""Each seat's stored part in a match's verdict (`Result`), each player's sums of them
(`ResultSum`), and the money arithmetic they share."""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Self

from django.db import models
from django.db.models import Aggregate, Count, Min, Q, QuerySet, Sum

from games import rules


def staked_filter(prefix: str = "") -> Q:
    """A match played for money (of results: `prefix` "match__"): rules.Stakes.__bool__,
    asked of the stake columns."""
    return functools.reduce(
        operator.or_, (Q(**{f"{prefix}{name}_cents__gt": 0}) for name in rules.STAKE_NAMES)
    )


STAKED = staked_filter("match__")


# Every amount and every sum of money is one 64-bit integer: the limits on what a loser owes
# and on a group's matches keep them far inside it (settings.MAX_LOSS_CENTS, the arithmetic).
NET = Sum("net_cents", default=0)


def _counts() -> dict[str, Count]:
    """How many matches results are of, how many finished, and how many won: aggregates."""
    return {
        "played": Count("pk"),
        "finished": Count("pk", filter=Q(match__finished__isnull=False)),
        "won": Count("pk", filter=Q(won=True)),
    }


def stat_sums() -> dict[str, Aggregate]:
    """`_counts()` and each field of rules.Tally summed (docs/rules.md §12): aggregates."""
    return {**_counts(), **{name: Sum(name, default=0) for name in TALLY_FIELDS}}


class ResultQuerySet(models.QuerySet["Result"]):
    def finished(self) -> Self:
        return self.filter(match__finished__isnull=False)

    def stats(self) -> dict[str, Any]:
        """The counts of docs/rules.md §12 summed over these results: matches, finished, wins
        and each field of rules.Tally."""
        return self.aggregate(**stat_sums())

    def money_by_preset(self) -> dict[str, dict[str, int]]:
        """`money()` for each preset played."""
        rows = self.finished().filter(STAKED).values_list("match__preset", "match__currency")
        out: dict[str, dict[str, int]] = {}
        for preset, currency, net in rows.annotate(net=NET).order_by(
            "match__preset", "match__currency"
        ):
            out.setdefault(preset, {})[currency] = net
        return out

    def money(self) -> dict[str, int]:
        """Net money in cents by currency, over the finished matches played for money."""
        staked = self.finished().filter(STAKED).values_list("match__currency")
        rows = staked.annotate(net=NET).order_by("match__currency")
        return dict(rows)


class Tallied(models.Model):
    """rules.Tally, field by field (docs/rules.md §12), but for its points: of a match
    (`Result`), or summed over many (`ResultSum`)."""

    dealt_in = models.PositiveIntegerField(default=0)
    stayed_in = models.PositiveIntegerField(default=0)
    could_drop = models.PositiveIntegerField(default=0)
    stayed_by_choice = models.PositiveIntegerField(default=0)
    made_trump = models.PositiveIntegerField(default=0)
    made = models.PositiveIntegerField(default=0)
    was_set = models.PositiveIntegerField(default=0)
    euchred = models.PositiveIntegerField(default=0)
    sweeps = models.PositiveIntegerField(default=0)
    # rules.Moons (§12): hands they declared the moon, and of those made it.
    moons_declared = models.PositiveIntegerField(default=0)
    moons_made = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


class Result(Tallied):
    """One seat's part in the engine's verdict on its match: the score as it stands, and once
    the match is over who won and the money (docs/rules.md §6), with the counts of §12.

    Written by `writes._write_verdict` in the transaction that writes the hands, and only
    there, so lists, records and statistics read it instead of replaying every match.
    """

    match = models.ForeignKey("Match", models.CASCADE, related_name="results")
    player = models.ForeignKey("Player", models.RESTRICT, related_name="results")
    seat = models.PositiveSmallIntegerField(help_text="clockwise, from 0")
    score = models.IntegerField()
    won = models.BooleanField(default=False)
    # Up to 5 losers × settings.MAX_LOSS_CENTS: within 32 bits, but summed past them.
    net_cents = models.BigIntegerField(default=0, help_text="money won (+) or lost (−), in cents")
    short = models.PositiveSmallIntegerField(
        default=0, help_text="hands they fell short: set, or played and took no trick (§6)"
    )
    points = models.IntegerField(default=0)  # the last of rules.Tally's counts (Tallied)
    # Where the match counts for the player's money (finished, played for money): its place
    # among their such matches in its currency, in the order they began (from 1), and their
    # net over those up to it, in cents; None where it does not count. Kept by
    # `run_totals()`, with the sums: a chart of a long history reads the few places it shows,
    # never every match (`running_money`).
    running_place = models.PositiveIntegerField(null=True, blank=True)
    running_cents = models.BigIntegerField(null=True, blank=True)

    objects = ResultQuerySet.as_manager()

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="result_seat_unique"),
            models.UniqueConstraint(fields=["match", "player"], name="result_player_unique"),
        ]
        indexes = [models.Index(fields=["player", "running_place"], name="result_running")]

    def __str__(self) -> str:
        return f"{self.player}: {self.score}"

    def get_absolute_url(self) -> str:
        return self.match.get_absolute_url()


# --- The results summed, player by player --------------------------------------------------

TALLY_FIELDS = (
    *(f.name for f in fields(rules.Tally)),
    *(f"moons_{f.name}" for f in fields(rules.Moons)),
)
# A result's columns that its player's sums add up.
SUMMED = ("won", "net_cents", *TALLY_FIELDS)


def summed(result: Result) -> dict[str, Any]:
    """What of a result its player's sums add up (`SUMMED`)."""
    return {name: getattr(result, name) for name in SUMMED}


# The columns of `ResultSum` that add up (its money and its first match are kept beside them).
COUNTED = ("played", "finished", "won", "staked", *TALLY_FIELDS)


@dataclass(frozen=True)
class Summed:
    """What a player's statistics, record and chart read of their sums (`ResultSum`), as
    adding up every result would give them (`stats()` overall and for each preset, most
    played first, `money()` and `money_by_preset()`); and how many finished matches were
    played for money in each currency, and when the first of them began (the points of their
    chart)."""

    stats: dict[str, int]
    by_preset: dict[str, dict[str, int]]
    money: dict[str, int]
    money_by_preset: dict[str, dict[str, int]]
    staked: dict[str, int]
    first: dict[str, datetime]


class ResultSumQuerySet(models.QuerySet["ResultSum"]):
    def summed(self) -> Summed:
        """These sums added up, from one query of a few rows."""
        rows = self.order_by("currency", "preset").values(
            "preset", "currency", *COUNTED, "net_cents", "first"
        )
        stats = dict.fromkeys(("played", "finished", "won", *TALLY_FIELDS), 0)
        by_preset: dict[str, dict[str, int]] = {}
        money: dict[str, int] = {}
        money_by_preset: dict[str, dict[str, int]] = {}
        staked: dict[str, int] = {}
        first: dict[str, datetime] = {}
        for row in rows:
            preset, currency = row["preset"], row["currency"]
            mine = by_preset.setdefault(preset, dict.fromkeys(stats, 0))
            for name in stats:
                stats[name] += row[name]
                mine[name] += row[name]
            if row["staked"]:
                cents = row["net_cents"]
                money[currency] = money.get(currency, 0) + cents
                preset_money = money_by_preset.setdefault(preset, {})
                preset_money[currency] = preset_money.get(currency, 0) + cents
                staked[currency] = staked.get(currency, 0) + row["staked"]
                first[currency] = min(first.get(currency, row["first"]), row["first"])
        order = sorted(by_preset, key=lambda preset: (-by_preset[preset]["played"], preset))
        by_preset = {preset: by_preset[preset] for preset in order}
        return Summed(stats, by_preset, money, money_by_preset, staked, first)

    def nets(self) -> QuerySet[ResultSum, tuple[str, str, int, datetime]]:
        """(currency, name, net, first) of each player with a finished match played for
        money, in the order `_nets()` reads them."""
        return (
            self.filter(staked__gt=0)
            .values_list("currency", "player__name")
            .annotate(net=Sum("net_cents"), first=Min("first"))
            .order_by("currency", "first", "player__name")
        )


class ResultSum(Tallied):
    """A player's results (`Result`) summed over their matches of one preset played in one
    currency: the §12 counts that `ResultQuerySet.stats()` adds up, and over the finished
    matches played for money (`staked`) the money and when the first of them began. Their
    statistics, record, chart and balances read these few rows, never every match of a long
    history.

    Written by `move_sums()` in the transaction that writes the results it sums, under the
    group's turn, and only there; `recount_sums()` sums them anew where results move
    wholesale (a merge, the admin's edit of a match)."""

    player = models.ForeignKey("Player", models.CASCADE, related_name="result_sums")
    preset = models.CharField(max_length=20)
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    played = models.PositiveIntegerField(default=0)
    finished = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    staked = models.PositiveIntegerField(default=0, help_text="finished matches played for money")
    # The money won (+) or lost (−) over those, in cents.
    net_cents = models.BigIntegerField(default=0)
    first = models.DateTimeField(null=True, blank=True, help_text="when the first of those began")
    points = models.BigIntegerField(default=0)  # summed, it can pass 32 bits

    objects = ResultSumQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "preset", "currency"], name="result_sum_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.played} {self.preset} matches in {self.currency}"

    def get_absolute_url(self) -> str:
        return self.player.get_absolute_url()
