"""Card nights: the matches of one evening, and how a night or a group settles up."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import models
from django.db.models import Max, Min, QuerySet, Sum
from django.urls import reverse
from django.utils import timezone

from games import rules, words
from games.models.groups import Group
from games.models.ledger import Payment, PaymentQuerySet
from games.models.results import ResultSum
from games.models.sums import NightNets, NightSum, night_nets, settled_nights

# A match begun within this long of another one of the same group is settled with it.
NIGHT_GAP = timedelta(hours=6)


@dataclass(frozen=True)
class SettleUp:
    """A night's money in one currency: each player's net and the fewest payments."""

    currency: str
    net: dict[str, int]
    transfers: list[rules.Payment]
    fewest: bool = True  # False past the search (rules.settle_currencies)

    def key(self, payment: rules.Payment) -> str:
        """Which transfer it is: of whom, to whom, in which currency (`payment_key`)."""
        return payment_key(self.currency, payment.payer, payment.payee)

    def covered(self, transfer: rules.Payment, paid: dict[str, int]) -> bool:
        """A night's transfer counts as paid once the night's payments for it
        (`Night.paid_cents`) cover all of it."""
        return paid.get(self.key(transfer), 0) >= transfer.cents


def summed(payments: PaymentQuerySet, *first: str) -> QuerySet[Payment, tuple[Any, ...]]:
    """(*first, currency, payer, payee, cents) of these payments, summed from whom to whom."""
    rows = payments.values_list(*first, "currency", "payer__name", "payee__name")
    return rows.annotate(cents=Sum("amount_cents")).order_by()


def payment_key(currency: str, payer: str, payee: str) -> str:
    """A night's payments from `payer` to `payee` in `currency` pay its transfer of this key."""
    return f"{currency}:{payer}:{payee}"


class Night(models.Model):
    """Matches settled together (docs/rules.md §11): those begun the same evening, a night
    running past midnight included, unless the player moved one to another night."""

    group = models.ForeignKey("Group", models.CASCADE, related_name="nights")
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        first = self.matches.order_by("played_at").values_list("played_at", flat=True).first()
        return self.titled(first)

    def get_absolute_url(self) -> str:
        return reverse("games:night_detail", args=[self.pk])

    def titled(self, first: datetime | None) -> str:
        """Its title, its first match having begun at `first` (None: it has no match)."""
        if first is None:
            return "An empty night"
        return Night.title(first, self._shares_its_day(first))

    def _shares_its_day(self, first: datetime) -> bool:
        """Whether another night of the group began on the local day this one began (`first`)
        too: a night with a match that day and none before it. One query, which asks only of
        the nights of that day, however many nights the group has (a restore of old undated
        files makes as many nights as files, all in one day)."""
        day = timezone.localtime(first).date()
        start = timezone.make_aware(datetime.combine(day, time.min))
        end = timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))
        matches = Group(pk=self.group_id).matches
        that_day = matches.filter(played_at__gte=start)
        that_day = that_day.filter(played_at__lt=end).exclude(night=self.pk)
        others = Night.objects.filter(pk__in=that_day.values("night"))
        others = others.exclude(matches__played_at__lt=start)
        return others.exists()

    def started(self) -> date | None:
        """The local date the night began: the first of its matches."""
        first, _ = self.span()
        return timezone.localtime(first).date() if first else None

    def span(self) -> tuple[datetime | None, datetime | None]:
        """When its first and its last match began (None, None without a match)."""
        span = self.matches.aggregate(first=Min("played_at"), last=Max("played_at"))
        return span["first"], span["last"]

    @staticmethod
    def title(first: datetime, with_hour: bool) -> str:
        """ "The night of Tuesday 1 December 2026", and ", from 8:40 p.m." where another
        night of the group began the same day, so that no two nights share a title."""
        local = timezone.localtime(first)
        title = f"The night of {local:%A %-d %B %Y}"
        return f"{title}, from {words.clock(local)}" if with_hour else title

    @staticmethod
    def shared_days(group_id: int, firsts: Sequence[datetime]) -> set[date]:
        """Of the local days these nights began on, those on which another night of the group
        began too (one query, over the days around them)."""
        if not firsts:
            return set()
        low, high = min(firsts) - timedelta(days=1), max(firsts) + timedelta(days=1)
        # A night begun in that span has a match in it: only those nights are summed.
        near = Group(pk=group_id).matches.filter(played_at__range=(low, high))
        starts = (
            Night.objects.filter(pk__in=near.values("night_id"))
            .annotate(first=Min("matches__played_at"))
            .filter(first__range=(low, high))
            .values_list("first", flat=True)
        )
        days = Counter(timezone.localtime(first).date() for first in starts)
        return {day for day, nights in days.items() if nights > 1}

    @classmethod
    def latest(cls, group: Group) -> Night | None:
        """The night of the group's latest match, as soon as one of its matches has finished."""
        latest = group.matches.order_by("-played_at", "-id")
        nights = cls.objects.filter(pk=latest.values("night_id")[:1])
        return nights.filter(matches__finished__isnull=False).first()

    @classmethod
    def around(cls, group: Group, played_at: datetime) -> Night:
        """The night of a match begun at `played_at`: that of the group's match begun closest
        to it, within NIGHT_GAP, or else a new one."""
        near = group.matches.filter(played_at__range=(played_at - NIGHT_GAP, played_at + NIGHT_GAP))
        before = near.filter(played_at__lte=played_at).order_by("-played_at")
        after = near.filter(played_at__gt=played_at).order_by("played_at")
        found = [
            row
            for row in (
                before.values_list("played_at", "night_id").first(),
                after.values_list("played_at", "night_id").first(),
            )
            if row
        ]
        if not found:
            return cls.objects.create(group=group)
        _, night = min(found, key=lambda row: abs(row[0] - played_at))
        return cls.objects.get(pk=night)

    def settle_up(self) -> list[SettleUp]:
        """Each currency's nets over the night's finished matches played for money, from its
        players' stored sums of it (`NightSum`), and the fewest transfers that settle them
        (§11), as searched once its nets last changed (`settled_nights`). Players come in the
        order of the first match they played, then by name; a name is one person."""
        nets = night_nets(self.sums.all()).get(self.pk, {})
        found = settled_nights({self.pk: nets}).get(self.pk, {}) if nets else {}
        return [SettleUp(c, dict(nets[c]), *found[c]) for c in sorted(nets)]

    @staticmethod
    def fingerprint(settle_up: list[SettleUp]) -> str:
        """The transfers as a page shows them: a mark from a page that showed others is
        refused."""
        text = "\n".join(f"{s.key(t)}:{t.cents}" for s in settle_up for t in s.transfers)
        return hashlib.sha256(text.encode()).hexdigest()

    def paid_cents(self) -> dict[str, int]:
        """What has been paid of this night's transfers, by `SettleUp.key`: from whom, to
        whom, in which currency. A transfer counts as paid when this covers it.

        The payments recorded for the night count for it; so do those recorded for no night
        (on the balances page: money that moved between two players), which pay the group's
        nights' transfers from the same payer to the same payee, the earliest night first, as
        far as what the night's own payments leave of each. So the night's page, its CSV, the
        home page and the balances read the same payments the same way."""
        paid = {payment_key(*key): cents for *key, cents in summed(self.payments.all())}
        payments = Payment.objects.filter(group=self.group_id)
        loose = {tuple(key): cents for *key, cents in summed(payments.filter(night=None))}
        if not loose:
            return paid
        own: dict[tuple[int, str], int] = {}
        for night, *whom, cents in summed(payments.exclude(night=None), "night_id"):
            own[night, payment_key(*whom)] = cents
        nets: dict[int, NightNets] = {}
        began: dict[int, datetime] = {}
        sums = NightSum.objects.filter(player__group=self.group_id)
        for night, currency, name, cents, at in sums.values_list(
            "night_id", "currency", "player__name", "net_cents", "started"
        ).order_by("night_id", "currency", "started", "player__name"):
            nets.setdefault(night, {}).setdefault(currency, []).append((name, cents))
            began[night] = min(began.get(night, at), at)
        if self.pk not in nets:
            return paid
        nights = sorted(nets, key=lambda night: (began[night], night))
        nights = nights[: nights.index(self.pk) + 1]

        def may_pay(night: int) -> bool:
            """Whether a loose payment's payer owes that night and its payee is owed there:
            only such a night can have a transfer it pays."""
            owed = {(c, name): cents for c, rows in nets[night].items() for name, cents in rows}
            return any(
                owed.get((c, payer), 0) < 0 < owed.get((c, payee), 0) for c, payer, payee in loose
            )

        # Their transfers as kept since their nets last changed: no night searched again here.
        settled = settled_nights({night: nets[night] for night in nights if may_pay(night)})
        left = {payment_key(*key): cents for key, cents in loose.items()}
        for night in nights:
            for currency, (transfers, _) in settled.get(night, {}).items():
                for t in transfers:
                    key = payment_key(currency, t.payer, t.payee)
                    take = min(left.get(key, 0), max(0, t.cents - own.get((night, key), 0)))
                    if take:
                        left[key] -= take
                        if night == self.pk:
                            paid[key] = paid.get(key, 0) + take
        return paid


# --- A group's balances, over all its nights and payments -----------------------------------


def balance_nets(
    rows: Iterable[tuple[str, str, int, datetime]], payments: PaymentQuerySet
) -> dict[str, dict[str, int]]:
    """Each currency's balances: every player's net of `rows` (`ResultSumQuerySet.nets()`,
    their stored sums), plus what they paid of `payments`, minus
    what they were paid. Players come in the order of the first match they played, then by
    name; those only in payments after them. The balances of each currency sum to zero."""
    nets: dict[str, dict[str, int]] = {}
    for currency, name, net, _ in rows:
        nets.setdefault(currency, {})[name] = net
    for sign, side in ((1, "payer"), (-1, "payee")):
        for currency, name, cents in sorted(payments.by_currency_and_player(side)):
            mine = nets.setdefault(currency, {})
            mine[name] = mine.get(name, 0) + sign * cents
    return dict(sorted(nets.items()))


def group_balances(group: Group) -> list[SettleUp]:
    """Each currency's balances over every night and payment of the group (`balance_nets`, of its
    players' stored sums), and the payments that settle them: the fewest, as for a night
    (§11), wherever rules.settle_currencies can search for them."""
    nets = balance_nets(ResultSum.objects.filter(player__group=group).nets(), group.payments.all())
    settled = rules.settle_currencies(nets)  # one budget for all of them (§11)
    return [SettleUp(c, net, *settled[c]) for c, net in nets.items()]
