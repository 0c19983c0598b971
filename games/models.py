"""The stored matches: a thin adapter over rules.py.

What happened at the table is stored (seats, rules, stakes, hands, each player's part);
scores, dealer, winners and payouts are folded from the hands by the rules engine. The engine's
verdict is stored with the hands, by `Match._store()` (or `_store_rescored()`) and nowhere else,
so that a page need not fold a whole match: each seat's `Result`, and each hand's scores after
it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import operator
import secrets
from collections import Counter
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q, Sum
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property

from games import matchfile, rules, words

# Far more than any card night; a bound so that no file or tap can store an endless match.
MAX_HANDS = 1000


# Every page of a match reads its players' names and its hands, and Django's building of those
# queries cost several times their running (bench/pages_bench.py): they are written out here.
# The hands come in one statement (a page never sees half of a write), each with its verdict
# (`VERDICT_COLUMNS`), numbered from the first %s to the second. They name their players by
# seat, not by name:
# the names are read in another statement, and a rename or a merge committed between the two
# changes a name but never a seat.
NAMES_SQL = """
    SELECT player.name FROM games_seat seat
    JOIN games_player player ON player.id = seat.player_id
    WHERE seat.match_id = %s ORDER BY seat.position
"""
HANDS_SQL = """
    SELECT hand.number, hand.upcard, hand.trump, maker.position, hand.bid, hand.passed,
           seat.position, play.dropped, play.tricks, hand.dealer, hand.scores, hand.sets
    FROM games_hand hand
    LEFT JOIN games_seat maker
        ON maker.match_id = hand.match_id AND maker.player_id = hand.maker_id
    LEFT JOIN games_play play ON play.hand_id = hand.id
    LEFT JOIN games_seat seat ON seat.match_id = hand.match_id AND seat.player_id = play.player_id
    WHERE hand.match_id = %s AND hand.number BETWEEN %s AND %s
    ORDER BY hand.number, play.id
"""
VERSION_SQL = "SELECT version FROM games_match WHERE id = %s"
ROLE_SQL = "SELECT role FROM games_membership WHERE group_id = %s AND user_id = %s"
GROUP_VERSION_SQL = "SELECT version FROM games_group WHERE id = %s"
LAST_NUMBER = 32_767  # as far as hands go: the largest number a hand's column holds


def _fetch(sql: str, *params) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# A night's nets: its players' stored sums of it, in the order of their first match, then by
# name (`Night.settle_up`); what its payments add up to, from whom to whom (`paid_cents`); when
# its first and last match began (`Night.span`).
NIGHT_NETS_SQL = """
    SELECT s.currency, p.name, s.net_high, s.net_low
    FROM games_nightsum s JOIN games_player p ON p.id = s.player_id
    WHERE s.night_id = %s
    ORDER BY s.currency, s.started, p.name
"""
NIGHT_PAID_SQL = """
    SELECT pay.currency, payer.name, payee.name, SUM(pay.amount_cents)
    FROM games_payment pay
    JOIN games_player payer ON payer.id = pay.payer_id
    JOIN games_player payee ON payee.id = pay.payee_id
    WHERE pay.night_id = %s
    GROUP BY pay.currency, payer.name, payee.name
"""
# A group's payments recorded for no night, summed from whom to whom (`Night.paid_cents`);
# its nights' nets, night by night in the order each began, in `NIGHT_NETS_SQL`'s order within
# a night; what each night's own payments add up to.
LOOSE_PAID_SQL = """
    SELECT pay.currency, payer.name, payee.name, SUM(pay.amount_cents)
    FROM games_payment pay
    JOIN games_player payer ON payer.id = pay.payer_id
    JOIN games_player payee ON payee.id = pay.payee_id
    WHERE pay.group_id = %s AND pay.night_id IS NULL
    GROUP BY pay.currency, payer.name, payee.name
"""
GROUP_NIGHT_NETS_SQL = """
    SELECT s.night_id, s.currency, p.name, s.net_high, s.net_low, s.started
    FROM games_nightsum s JOIN games_player p ON p.id = s.player_id
    WHERE p.group_id = %s
    ORDER BY s.night_id, s.currency, s.started, p.name
"""
GROUP_NIGHT_PAID_SQL = """
    SELECT pay.night_id, pay.currency, payer.name, payee.name, SUM(pay.amount_cents)
    FROM games_payment pay
    JOIN games_player payer ON payer.id = pay.payer_id
    JOIN games_player payee ON payee.id = pay.payee_id
    WHERE pay.group_id = %s AND pay.night_id IS NOT NULL
    GROUP BY pay.night_id, pay.currency, payer.name, payee.name
"""
# The night of a group's latest match, once one of its matches has finished (`Night.latest`);
# a group's latest matches in progress, or finished (`Match.objects.latest_ids`).
LATEST_NIGHT_SQL = """
    SELECT * FROM games_night WHERE id = (
        SELECT night_id FROM games_match WHERE group_id = %s
        ORDER BY played_at DESC, id DESC LIMIT 1
    ) AND EXISTS (
        SELECT 1 FROM games_match WHERE night_id = games_night.id AND finished IS NOT NULL
    )
"""
LATEST_MATCHES_SQL = """
    SELECT id FROM games_match WHERE group_id = %s AND finished IS {} NULL
    ORDER BY played_at DESC, id DESC LIMIT %s
"""
NIGHT_SPAN_SQL = "SELECT MIN(played_at), MAX(played_at) FROM games_match WHERE night_id = %s"


# Each match's card: the match and its stored results, seat by seat (`Match.card_rows`).
CARDS_SQL = """
    SELECT m.id, m.preset, m.played_at, m.finished, m.hands_played, m.next_dealer,
        r.seat, p.name, r.score, r.won
    FROM games_match m
    LEFT JOIN games_result r ON r.match_id = m.id
    LEFT JOIN games_player p ON p.id = r.player_id
    WHERE m.id IN ({ids})
    ORDER BY m.id, r.seat
"""


@dataclass
class CardRow:
    """What a list shows of a match (`Match.card_rows`): its results are (seat, name, score,
    won), in seat order."""

    pk: int
    preset: str
    played_at: datetime
    finished: bool
    hands_played: int
    next_dealer: int
    results: list[tuple[int, str, int, bool]]


def _latest(sql: str, partitions: list[tuple]) -> list[tuple]:
    """The rows of `sql` (the latest rows of one partition, through its index) for each of
    `partitions` (its parameters), in one statement, however long the history behind them."""
    if not partitions:
        return []
    union = " UNION ALL ".join(f"SELECT * FROM ({sql}) latest_{i}" for i in range(len(partitions)))
    return _fetch(union, *(param for params in partitions for param in params))


def _moment(value) -> datetime:
    """A timestamp as a query written out reads it: on SQLite, a time without its zone (UTC,
    as Django writes it there), or its text; on PostgreSQL, the moment itself."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# What a hand's row keeps of the engine's verdict on it (see `hand_verdict`).
VERDICT_COLUMNS = ("dealer", "scores", "sets")


def hands_from_rows(rows, names) -> list[rules.Hand]:
    """The engine's hands from rows of `HANDS_SQL`, ordered by number; `names` in seat
    order (the rows name the maker and the players by seat)."""
    hands: dict[int, dict] = {}
    for number, upcard, trump, maker, bid, passed, who, dropped, tricks, *_ in rows:
        hand = hands.setdefault(
            number,
            {
                "upcard": upcard,
                "trump": trump or None,
                "maker": None if maker is None else names[maker],
                "bid": bid,
                "passed": bool(passed),
                "dropped": [],
                "tricks": {},
            },
        )
        if who is None:
            continue
        if dropped:
            hand["dropped"].append(names[who])
        else:
            hand["tricks"][names[who]] = tricks
    seat = {name: i for i, name in enumerate(names)}
    return [
        rules.Hand(**{**h, "dropped": tuple(sorted(h["dropped"], key=lambda n: seat.get(n, 9)))})
        for h in hands.values()
    ]


def _seated(hand: rules.Hand, was, now) -> rules.Hand:
    """`hand` as entered at the table `was` (names in seat order), for the same seats named
    `now`: a rename or a merge between the page's reading and the save changed a name, never
    who sat where."""
    if tuple(was) == tuple(now) or len(was) != len(now):
        return hand
    new = dict(zip(was, now, strict=True))

    def named(name):
        return new.get(name, name)

    return replace(
        hand,
        maker=named(hand.maker),
        dropped=tuple(named(n) for n in hand.dropped),
        tricks={named(n): t for n, t in hand.tricks.items()},
        dealer=named(hand.dealer),
    )


def verdict(
    start: rules.MatchState,
    state: rules.MatchState,
    results: list[rules.HandResult],
    stakes: rules.Stakes,
) -> list[dict]:
    """Each seat's part in the engine's verdict on a match, as `Result` fields, in seat order."""
    _, net = rules.settle(state, stakes)
    tallies = rules.tallies(start, results)
    return [
        {
            "seat": seat,
            "score": state.scores[name],
            "won": name in state.winners,
            "net_cents": net.get(name, 0),
            "short": state.sets[name],
            **asdict(tallies[name]),
        }
        for seat, name in enumerate(state.players)
    ]


def _json(value):
    """A JSON column as a query written out reads it: text (as SQLite, and psycopg as Django
    sets it up, hand it back), or the value itself."""
    return json.loads(value) if isinstance(value, str) else value


def hand_verdict(names, result: rules.HandResult) -> dict:
    """A hand's part in the engine's verdict, as `Hand` fields: who dealt it and, after it,
    every seat's score and the hands each has fallen short, in seat order."""
    return {
        "dealer": names.index(result.dealer),
        "scores": [result.scores[name] for name in names],
        "sets": [result.sets[name] for name in names],
    }


def write_hand_verdicts(rows, names, results: list[rules.HandResult]) -> None:
    """Write the engine's verdict on each of these stored hands (`Hand` rows)."""
    for row in rows:
        for column, value in hand_verdict(names, results[row.number - 1]).items():
            setattr(row, column, value)
    if rows:
        type(rows[0]).objects.bulk_update(rows, VERDICT_COLUMNS)


class Stale(Exception):
    """A write from a page drawn before the match's hands last changed (another phone's save)."""

    def __init__(self, match: Match, hands: int):
        super().__init__(f"match {match.pk} is at version {match.version}")
        self.match = match
        self.hands = hands  # how many hands the match has now


# rules.SUITS as choices, named as the app says them ("♣ Clubs").
SUIT_CHOICES = [(s, words.suit_label(s)) for s in rules.SUITS]


PRESET_CHOICES = [(p.name, p.label) for p in rules.PRESETS.values()]


def new_share_token() -> str:
    return secrets.token_urlsafe(16)


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

    def totals(self) -> dict:
        """Matches played, finished and won, and money by currency, from their stored sums."""
        summed = self.result_sums.summed()
        counts = {name: summed.stats[name] for name in ("played", "finished", "won")}
        return {**counts, "money": summed.money}

    def clean(self):
        """The admin's check: a name is one person, in whatever capitals and spaces."""
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
        _groups_turn(self.group_id)
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

    @transaction.atomic
    def merge(self, other: Player) -> int:
        """Take `other` in as another spelling of this player: their seats, hands and results
        become this player's and `other` is gone. Returns how many matches moved over.

        Refused (RuleError) when both sat at one match: that match had two people.
        """
        if other.pk == self.pk or other.group_id != self.group_id:
            raise rules.RuleError("bad_table", "Choose another of your players.", "other")
        _groups_turn(self.group_id)  # no new match takes `other` in meanwhile
        _still_here(self, other)
        # Their matches take no hand while they change hands (the write lock of `_store`).
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


def same_person(players, name: str) -> Player | None:
    """The player of `players` whose name is `name` as a person: in any capitals and spaces
    (rules.name_key)."""
    key = rules.name_key(name)
    return next((p for p in players if rules.name_key(p.name) == key), None)


def seat_players(group, names) -> list[Player]:
    """The group's player for each name, in order: the one saved under that name in any
    capitals and spaces (its first spelling kept), or a new one."""
    saved = {rules.name_key(p.name): p for p in Player.objects.filter(group=group)}
    return [
        saved.get(rules.name_key(name)) or Player.objects.create(group=group, name=name)
        for name in names
    ]


# A match begun within this long of another one of the same group is settled with it.
NIGHT_GAP = timedelta(hours=6)


@dataclass(frozen=True)
class SettleUp:
    """A night's money in one currency: each player's net and the fewest payments."""

    currency: str
    net: dict[str, int]
    transfers: list[rules.Payment]
    fewest: bool = True  # False where too many owe or are owed to search (rules.settle_nets)

    def key(self, payment: rules.Payment) -> str:
        """Which transfer it is: of whom, to whom, in which currency (`payment_key`)."""
        return payment_key(self.currency, payment.payer, payment.payee)

    def covered(self, transfer: rules.Payment, paid: dict[str, int]) -> bool:
        """A night's transfer counts as paid once the night's payments for it
        (`Night.paid_cents`) cover all of it."""
        return paid.get(self.key(transfer), 0) >= transfer.cents


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

    def titled(self, first) -> str:
        """Its title, its first match having begun at `first` (None: it has no match)."""
        if first is None:
            return "An empty night"
        return Night.title(first, self._shares_its_day(first))

    def _shares_its_day(self, first) -> bool:
        """Whether another night of the group began on the local day this one began (`first`)
        too: a night with a match that day and none before it. One query, which asks only of
        the nights of that day, however many nights the group has (a restore of old undated
        files makes as many nights as files, all in one day)."""
        day = timezone.localtime(first).date()
        start = timezone.make_aware(datetime.combine(day, time.min))
        end = timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))
        that_day = Match.objects.filter(group=self.group_id, played_at__gte=start)
        that_day = that_day.filter(played_at__lt=end).exclude(night=self.pk)
        earlier = Match.objects.filter(night=OuterRef("pk"), played_at__lt=start)
        others = Night.objects.filter(pk__in=that_day.values("night")).exclude(Exists(earlier))
        return others.exists()

    def started(self):
        """The local date the night began: the first of its matches."""
        first, _ = self.span()
        return timezone.localtime(first).date() if first else None

    def span(self) -> tuple[datetime | None, datetime | None]:
        """When its first and its last match began (None, None without a match)."""
        [(first, last)] = _fetch(NIGHT_SPAN_SQL, self.pk)
        return (_moment(first), _moment(last)) if first else (None, None)

    @staticmethod
    def title(first, with_hour: bool) -> str:
        """ "The night of Tuesday 1 December 2026", and ", from 8:40 p.m." where another
        night of the group began the same day, so that no two nights share a title."""
        local = timezone.localtime(first)
        title = f"The night of {local:%A %-d %B %Y}"
        return f"{title}, from {words.clock(local)}" if with_hour else title

    @staticmethod
    def shared_days(group_id: int, firsts) -> set:
        """Of the local days these nights began on, those on which another night of the group
        began too (one query, over the days around them)."""
        if not firsts:
            return set()
        low, high = min(firsts) - timedelta(days=1), max(firsts) + timedelta(days=1)
        # A night begun in that span has a match in it: only those nights are summed.
        near = Match.objects.filter(group=group_id, played_at__range=(low, high))
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
        return next(iter(cls.objects.raw(LATEST_NIGHT_SQL, [group.pk])), None)

    @classmethod
    def around(cls, group, played_at) -> Night:
        """The night of a match begun at `played_at`: that of the group's match begun closest
        to it, within NIGHT_GAP, or else a new one."""
        near = Match.objects.filter(
            group=group, played_at__range=(played_at - NIGHT_GAP, played_at + NIGHT_GAP)
        )
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
        (§11). Players come in the order of the first match they played, then by name; a
        name is one person."""
        nets: dict[str, dict[str, int]] = {}
        for currency, name, high, low in _fetch(NIGHT_NETS_SQL, self.pk):
            nets.setdefault(currency, {})[name] = _net(high, low)
        return [SettleUp(c, net, *rules.settle_nets(net)) for c, net in sorted(nets.items())]

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
        paid = {payment_key(*key): int(cents) for *key, cents in _fetch(NIGHT_PAID_SQL, self.pk)}
        loose = {
            payment_key(*key): int(cents) for *key, cents in _fetch(LOOSE_PAID_SQL, self.group_id)
        }
        if not loose:
            return paid
        own: dict[tuple[int, str], int] = {}
        for night, *whom, cents in _fetch(GROUP_NIGHT_PAID_SQL, self.group_id):
            own[night, payment_key(*whom)] = int(cents)
        nights: dict[int, dict[str, dict[str, int]]] = {}
        began: dict[int, datetime] = {}
        for night, currency, name, high, low, at in _fetch(GROUP_NIGHT_NETS_SQL, self.group_id):
            nights.setdefault(night, {}).setdefault(currency, {})[name] = _net(high, low)
            began[night] = min(began.get(night, at), at)
        for night in sorted(nights, key=lambda night: (began[night], night)):
            for currency, net in nights[night].items():
                if not any(left for k, left in loose.items() if k.startswith(f"{currency}:")):
                    continue  # nothing left to pay with: no need to search this one
                for t in rules.fewest_transfers(net):
                    key = payment_key(currency, t.payer, t.payee)
                    take = min(loose.get(key, 0), max(0, t.cents - own.get((night, key), 0)))
                    if take:
                        loose[key] -= take
                        if night == self.pk:
                            paid[key] = paid.get(key, 0) + take
            if night == self.pk:
                break
        return paid

    def mark(self, key: str, paid: bool, fingerprint: str | None, by=None) -> bool:
        """Mark a transfer of the night paid (a payment of what is left of it is recorded) or
        not paid after all (the night's payments for it are removed), as seen on a page
        showing the transfers `fingerprint` (None: from no page); False, and nothing changed,
        if the transfers have changed since. Marking twice changes nothing more.
        ValidationError if it can't be one payment."""
        with transaction.atomic():
            _groups_turn(self.group_id)  # payments of a group are written in turns
            settle_up = self.settle_up()
            found = {s.key(t): (s, t) for s in settle_up for t in s.transfers}.get(key)
            stale = fingerprint is not None and fingerprint != self.fingerprint(settle_up)
            if stale or found is None:
                return False
            s, transfer = found
            recorded = self.payments.filter(
                currency=s.currency, payer__name=transfer.payer, payee__name=transfer.payee
            )
            if not paid:
                recorded.delete()
                if s.covered(transfer, self.paid_cents()):
                    raise ValidationError(
                        f"{transfer.payer}'s payment to {transfer.payee} was recorded on the "
                        "balances page: remove it there if it was not made."
                    )
                return True
            left = transfer.cents - self.paid_cents().get(key, 0)
            if left > 0:
                players = Player.objects.filter(group=self.group_id)
                Payment.store(
                    self.group_id,
                    players.get(name=transfer.payer),
                    players.get(name=transfer.payee),
                    left,
                    s.currency,
                    by=by,
                    night=self,
                )
            return True


def _groups_turn(group_id: int) -> None:
    """Lock the group's row until the transaction ends, so that what a group does to its
    matches, nights, players and payments takes turns: two matches begun at once on two
    phones find each other's night, a night is never deleted under a match joining it, a file
    imported twice at once is stored once, two saves never add to a player's sums at once.
    (On SQLite the IMMEDIATE transaction already does this.)

    Every write to what the group's pages show takes this turn, so it also moves the group's
    version on (`Group.version`), in the same transaction: a region of a page drawn for a
    version (games/regions.py) is never shown once the stored data has changed."""
    if not Group.objects.filter(pk=group_id).update(version=F("version") + 1):
        raise Group.DoesNotExist(f"No group {group_id}.")


def _still_here(*players: Player) -> None:
    """Refuse to change a player merged into another since the page was read (the group's
    turn taken, none can go meanwhile)."""
    here = set(Player.objects.filter(pk__in=[p.pk for p in players]).values_list("pk", flat=True))
    for player in players:
        if player.pk not in here:
            raise rules.RuleError(
                "bad_table", f"{player.name} was just merged into another player.", "other"
            )


def _matches_turn(matches) -> list[int]:
    """Lock these matches' rows until the transaction ends, as a write to their hands does
    (`Match._locked`), so that a rename or a merge and a save take turns; in the order of
    their ids, so that two of them wait for each other rather than deadlock. (On SQLite the
    IMMEDIATE transaction already does this.) Returns their ids."""
    locked = Match.objects.select_for_update().filter(pk__in=matches).order_by("pk")
    return list(locked.values_list("pk", flat=True))


class PaymentsChanged(Exception):
    """A write from a page drawn before the group's payments last changed (another phone
    recorded or removed one)."""


class PaymentQuerySet(models.QuerySet["Payment"]):
    def version(self) -> str:
        """These payments as a page shows them, in a few letters. Ids are never used twice,
        so along a group's history the count and the latest id differ whenever the payments
        do: a payment recorded raises the latest id, one removed lowers the count."""
        found = self.aggregate(count=Count("pk"), last=Max("pk"))
        return f"{found['count']}-{found['last'] or 0}"

    def since(self, version: str | None) -> PaymentQuerySet:
        """These payments recorded after a page drawn at `version` (`version()`) was drawn:
        none for a page that sent no version."""
        try:
            last = int((version or "").rpartition("-")[2])
        except ValueError:
            return self.none()
        return self.filter(pk__gt=last) if 0 <= last < 2**63 else self.none()

    def by_currency_and_player(self, side: str) -> list[tuple[str, str, int]]:
        """(currency, name, cents) summed over these payments, by the payer's or the payee's
        name (`side`)."""
        rows = self.values_list("currency", f"{side}__name").annotate(cents=Sum("amount_cents"))
        return list(rows.order_by())


# A player's latest payments in a currency: made (%s, %s, and how many) and received.
LATEST_PAYMENTS_SQL = """
    SELECT id FROM (
        SELECT id FROM games_payment WHERE payer_id = %s AND currency = %s
        ORDER BY paid_at DESC, id DESC LIMIT %s
    ) made
    UNION ALL
    SELECT id FROM (
        SELECT id FROM games_payment WHERE payee_id = %s AND currency = %s
        ORDER BY paid_at DESC, id DESC LIMIT %s
    ) received
"""


class Payment(models.Model):
    """Money that moved from one player of a group to another: a night's transfer marked
    paid, part of what someone owes, cash at the door. A record: once stored it is changed by
    nothing, a change of the hands included (the money moved all the same); the balances
    show what is left. Only a scorer's "remove" or "not paid after all" takes it away."""

    group = models.ForeignKey("Group", models.CASCADE, related_name="payments")
    payer = models.ForeignKey(Player, models.RESTRICT, related_name="payments_made")
    payee = models.ForeignKey(Player, models.RESTRICT, related_name="payments_received")
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    paid_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Who recorded it, as they were called then: the record outlives a deleted account.
    by = models.CharField(max_length=150, blank=True)
    # The night whose transfer it paid ("Mark paid"); kept, unattached, if the night goes.
    night = models.ForeignKey(
        Night, models.SET_NULL, null=True, blank=True, related_name="payments"
    )
    # The form it was sent from: the same form sent twice (a double tap) stores it once.
    token = models.CharField(max_length=32, blank=True)

    objects = PaymentQuerySet.as_manager()

    class Meta:
        ordering = ["-paid_at", "-pk"]
        # A balance's workings read a player's latest payments, made and received.
        indexes = [
            models.Index(fields=["payer", "currency", "-paid_at", "-id"], name="payment_made"),
            models.Index(fields=["payee", "currency", "-paid_at", "-id"], name="payment_received"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_cents__gt=0, amount_cents__lte=rules.MAX_STAKE_CENTS),
                name="payment_amount_range",
            ),
            models.CheckConstraint(
                condition=~Q(payer=models.F("payee")), name="payment_two_players"
            ),
            models.UniqueConstraint(
                fields=["token"], condition=~Q(token=""), name="payment_token_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.payer} paid {self.payee} {rules.format_money(self.amount_cents)}"

    def get_absolute_url(self) -> str:
        return reverse("games:balances", args=[self.group_id])

    @staticmethod
    def latest(keys: list[tuple[int, str]], most: int) -> list[Payment]:
        """Of each (player, currency) of `keys`, the `most` latest payments they made and the
        `most` latest they received, with their payers and payees, the latest first."""
        rows = _latest(LATEST_PAYMENTS_SQL, [(*key, most, *key, most) for key in keys])
        found = Payment.objects.filter(pk__in={pk for (pk,) in rows})
        return list(found.select_related("payer", "payee").order_by("-paid_at", "-pk"))

    @staticmethod
    def check_fits(group_id: int, payer: Player, payee: Player, cents: int, currency: str) -> None:
        """ValidationError, in words and on its field, unless this can be a payment of the group."""
        if cents <= 0:
            raise ValidationError({"amount": "Enter how much was paid: more than 0."})
        if cents > rules.MAX_STAKE_CENTS:  # as much as a stake can be, and no more
            words = f"{(rules.MAX_STAKE_CENTS + 1) // 100:,}"
            raise ValidationError({"amount": f"A payment must be under {words}."})
        if payer.group_id != group_id or payee.group_id != group_id:
            raise ValidationError({"payer": "Choose two of the group's players."})
        if payer.pk == payee.pk:
            raise ValidationError(
                {"payee": f"{payer.name} can't pay {payer.name}: choose two players."}
            )
        if currency not in Group(pk=group_id).currencies():
            words = (
                f"The group has played for no money in {currency}: choose one of its currencies."
            )
            raise ValidationError({"currency": words})

    @classmethod
    def store(cls, group_id, payer, payee, cents, currency, by=None, night=None, token=""):
        """Check and store a payment; the caller holds the group's turn (`_groups_turn`)."""
        cls.check_fits(group_id, payer, payee, cents, currency)
        user = by if by is not None and by.is_authenticated else None
        return cls.objects.create(
            group_id=group_id,
            payer=payer,
            payee=payee,
            amount_cents=cents,
            currency=currency,
            recorded_by=user,
            by=user.get_username() if user else "",
            night=night,
            token=token,
        )

    @classmethod
    def record(
        cls, group, payer, payee, cents: int, currency: str, version, token="", by=None
    ) -> tuple[Payment, bool]:
        """Record a payment: (payment, stored). The same form arriving twice (`token`) is
        stored once; ValidationError if it can't be one. A payment is money that moved: one
        recorded from a page drawn before another payment was recorded or removed (at the
        payments' `version`) is stored all the same, and the page says what else changed
        (`PaymentQuerySet.since`)."""
        with transaction.atomic():
            _groups_turn(group.pk)
            if token:
                same = cls.objects.filter(group=group, token=token).first()
                if same is not None:
                    return same, False
            return cls.store(group.pk, payer, payee, cents, currency, by, token=token), True

    def remove(self, version: str | None) -> bool:
        """Take the payment back, from a page drawn at the payments' `version`: False if it is
        gone already; PaymentsChanged, and nothing removed, from a page drawn before another
        payment was recorded or removed (a `version` of None, from no page, is not)."""
        with transaction.atomic():
            _groups_turn(self.group_id)
            if not Payment.objects.filter(pk=self.pk).exists():
                return False
            if (
                version is not None
                and version != Payment.objects.filter(group=self.group_id).version()
            ):
                raise PaymentsChanged(version)
            Payment.objects.filter(pk=self.pk).delete()
            return True


class MatchQuerySet(models.QuerySet["Match"]):
    def one(self, pk: int) -> Match | None:
        """The match of this id, or None: read by plain SQL, since every board, check and
        write of a match starts here and the ORM takes longer to build this query than the
        database takes to answer it."""
        return next(iter(self.raw("SELECT * FROM games_match WHERE id = %s", [pk])), None)

    def with_seats(self):
        """Each match's seats with their players, in seat order, in one query: its `names`
        without a query of their own. (The hands come in one more, `game_hands`.)"""
        return self.prefetch_related(
            models.Prefetch("seats", Seat.objects.select_related("player").order_by("position")),
        )

    def same_as(self, m: matchfile.Match) -> Match | None:
        """The match of these that is `m` (Match.same_as of the match file), if any."""
        if m.played_at is None:
            return None
        for match in self.filter(played_at=m.played_at).with_seats():
            if match.to_file().same_as(m):
                return match
        return None

    def with_results(self):
        """Each seat's stored result with its player, in seat order: a match's outcome on a
        list or a record without replaying it."""
        return self.prefetch_related(
            models.Prefetch("results", Result.objects.select_related("player").order_by("seat")),
        )

    def in_progress(self):
        return self.filter(finished__isnull=True)

    @staticmethod
    def latest_ids(group: Group, finished: bool, most: int) -> list[int]:
        """The group's `most` latest matches in progress, or finished: their ids."""
        sql = LATEST_MATCHES_SQL.format("NOT" if finished else "")
        return [pk for (pk,) in _fetch(sql, group.pk, most)]


class Match(models.Model):
    group = models.ForeignKey("Group", models.CASCADE, related_name="matches")
    preset = models.CharField(max_length=20, choices=PRESET_CHOICES)
    # Every option's value as chosen, so that a later change of a preset never rewrites it.
    options = models.JSONField()
    # Stakes in whole cents, as the engine counts them (docs/rules.md §6).
    per_game_cents = models.PositiveIntegerField(default=0)
    per_point_cents = models.PositiveIntegerField(default=0)
    per_set_cents = models.PositiveIntegerField(default=0)
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH, default="USD")
    first_dealer = models.PositiveSmallIntegerField(help_text="seat number, from 0")
    # When the match began: the match file's played_at, kept as an instant.
    played_at = models.DateTimeField(default=timezone.now)
    # The night it is settled with (docs/rules.md §11): by when it began, unless the player
    # moved it.
    night = models.ForeignKey("Night", models.RESTRICT, related_name="matches")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # When the deciding hand was saved: lets lists tell open matches from finished ones
    # without replaying them. This, the two fields below and the `Result` rows are the
    # engine's verdict, written with the hands in `_write_verdict()` and nowhere else.
    finished = models.DateTimeField(null=True, blank=True)
    hands_played = models.PositiveSmallIntegerField(default=0)
    next_dealer = models.PositiveSmallIntegerField(default=0, help_text="seat number, from 0")
    # Moves on every change of the hands, and on nothing else: the forms carry the version
    # their page was drawn from, and a write from an older page is refused (`Stale`).
    version = models.PositiveIntegerField(default=0)
    # The read-only link to the board for the other phones at the table; a new token revokes
    # the old link.
    share_token = models.CharField(max_length=32, unique=True, default=new_share_token)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["group", "-played_at"], name="match_group_played")]
        constraints = [
            models.CheckConstraint(
                condition=Q(per_game_cents__gte=0)
                & Q(per_point_cents__gte=0)
                & Q(per_set_cents__gte=0),
                name="match_stakes_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(first_dealer__lt=max(rules.SEAT_COUNTS)), name="match_dealer_seat"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} — {', '.join(self.names)}"

    def get_absolute_url(self) -> str:
        return reverse("games:match_detail", args=[self.pk])

    def move_to(self, night: Night | None) -> Night:
        """Settle the match with another night of its group's, or alone on a new one (None).

        Only the night changes: the hands and their version stay as they are, so no phone at
        the table is told its page is out of date.
        """
        with transaction.atomic():
            _groups_turn(self.group_id)
            match = Match.objects.get(pk=self.pk)
            old = match.night_id
            if night is None:
                night = Night.objects.create(group_id=self.group_id)
            Match.objects.filter(pk=self.pk).update(night=night)
            results = _summed_results(self.pk)
            finished = match.finished is not None
            _move_sums(match, old, results, finished, night.pk, results)
            Night.objects.filter(pk=old, matches__isnull=True).delete()
        self.night = night
        return night

    @transaction.atomic
    def remove(self) -> None:
        """Delete the match whole, and its night if no other match is left on it; its results
        leave their players' sums."""
        _groups_turn(self.group_id)
        stored = Match.objects.filter(pk=self.pk).first()
        results = _summed_results(self.pk)
        self.delete()
        if stored is not None:
            night = stored.night_id
            _move_sums(stored, night, results, stored.finished is not None, night, [])
        Night.objects.filter(pk=self.night_id, matches__isnull=True).delete()

    def get_share_url(self) -> str:
        return reverse("games:match_shared", args=[self.share_token])

    def new_share_link(self) -> None:
        """Revoke the read-only link: whoever had it sees nothing more."""
        self.share_token = new_share_token()
        self.save(update_fields=["share_token"])

    def file_name(self) -> str:
        """What its exported match file is called: "buck-euchre-12-2026-11-28.json"."""
        return f"buck-euchre-{self.pk}-{timezone.localtime(self.played_at):%Y-%m-%d}.json"

    @property
    def label(self) -> str:
        return Match.label_of(self.preset)

    @staticmethod
    def label_of(preset: str) -> str:
        """A preset's name in words, or its own name for one the app no longer knows."""
        return rules.PRESETS[preset].label if preset in rules.PRESETS else preset

    @staticmethod
    def card_rows(ids: list[int]) -> list[CardRow]:
        """What a list shows of each of these matches, in their order, from the stored
        results, in one statement written out (the ORM took five times what the database
        spends answering it, for a page of cards and their results)."""
        if not ids:
            return []
        rows = _fetch(CARDS_SQL.format(ids=", ".join(["%s"] * len(ids))), *ids)
        cards: dict[int, CardRow] = {}
        for pk, preset, played_at, finished, hands, dealer, seat, name, score, won in rows:
            card = cards.get(pk)
            if card is None:
                at = _moment(played_at)
                card = cards[pk] = CardRow(pk, preset, at, finished is not None, hands, dealer, [])
            if seat is not None:
                card.results.append((seat, name, score, bool(won)))
        return [cards[pk] for pk in ids if pk in cards]

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The players' names in seat order: from `with_seats()`'s seats where they were
        fetched (a list of matches), else in one small query (a single match's page)."""
        if "seats" in getattr(self, "_prefetched_objects_cache", {}):
            return tuple(seat.player.name for seat in self.seats.all())
        return tuple(name for (name,) in _fetch(NAMES_SQL, self.pk))

    def moved_on(self) -> bool:
        """Whether the match was written (or deleted) since this row of it was read: another
        phone's save landing between a page's reading of the match and of its hands."""
        return _fetch(VERSION_SQL, self.pk) != [(self.version,)]

    def winner_names(self) -> list[str]:
        return [r.player.name for r in self.results.all() if r.won]

    def stored_state(self) -> rules.MatchState:
        """The match as its stored results hold it, without replaying the hands: `_store()`
        writes them with the hands, so they are the engine's fold of them, all but `won_by`
        (which only a finished match's own page tells, from its replay)."""
        if "results" in getattr(self, "_prefetched_objects_cache", {}):
            # `with_results()`: a list of matches
            verdict = self.hands_played, self.next_dealer
            rows = [(r.player.name, r.score, r.short, r.won, *verdict) for r in self.results.all()]
        else:
            # The results read with the match's own verdict, in one statement: one moment.
            columns = ("player__name", "score", "short", "won")
            of_match = ("match__hands_played", "match__next_dealer")
            rows = list(self.results.order_by("seat").values_list(*columns, *of_match))
        if not rows:  # no verdict stored (a match made outside the app): fold the hands
            return self.replay()[0]
        names = tuple(row[0] for row in rows)
        hands, dealer = rows[0][4:]
        return rules.MatchState(
            ruleset=self.ruleset(),
            players=names,
            scores={name: score for name, score, *_ in rows},
            dealer=names[dealer],
            hands=hands,
            sets={name: short for name, _, short, *_ in rows},
            winners=tuple(name for name, _, _, won, *_ in rows if won),
        )

    def settled(self) -> tuple[rules.MatchState, list[rules.Payment]]:
        """The match's end as its stored results hold it, and who pays whom by the engine's
        §6 (`rules.settle`), without replaying the hands."""
        state = self.stored_state()
        payments, _ = rules.settle(state, self.stakes())
        return state, payments

    def ruleset(self) -> rules.Ruleset:
        return rules.make_ruleset(self.preset, **self.options)

    def stakes(self) -> rules.Stakes:
        return rules.Stakes(
            self.per_game_cents, self.per_point_cents, self.per_set_cents, self.currency
        )

    def start(self) -> rules.MatchState:
        return rules.new_match(self.ruleset(), self.names, self.names[self.first_dealer])

    def game_hands(self) -> list[rules.Hand]:
        """The hands for the engine, read in one statement: a page never sees half of a write
        (under READ COMMITTED every statement has its own snapshot)."""
        return hands_from_rows(_fetch(HANDS_SQL, self.pk, 1, LAST_NUMBER), self.names)

    def replay(self, hands: list[rules.Hand] | None = None):
        """The match folded over its hands: (state, results)."""
        return rules.replay(self.start(), self.game_hands() if hands is None else hands)

    # A page reads the match from the engine's verdict stored with its hands (`_store()`),
    # never by folding the whole match: the state before a hand (`state_before`), the latest
    # hands of the board (`replay_latest`) and the score race (`score_race`) all start from
    # `_stored_hands` and `_verdict_after`, and fold the hands only where those rows are not
    # as `_store()` writes them (rows written by hand, seats changed in the admin).

    def _stored_hands(self, first: int, last: int = LAST_NUMBER) -> dict:
        """Hands `first` to `last` as stored, in one statement: {number: (hand, its verdict
        as `VERDICT_COLUMNS`)}, in the order of their numbers."""
        rows = _fetch(HANDS_SQL, self.pk, max(first, 1), last)
        verdicts = {row[0]: row[-len(VERDICT_COLUMNS) :] for row in rows}
        hands = hands_from_rows(rows, self.names)
        return dict(zip(verdicts, zip(hands, verdicts.values(), strict=True), strict=True))

    def _verdict_after(self, stored: dict, first: int) -> rules.MatchState | None:
        """The match after hand `first` (the start, for 0) as the verdict stored with it says,
        `stored` being `_stored_hands` that hold it and the hand after it; None where the rows
        are not as `_store()` writes them."""
        numbers = list(stored)
        if first + 1 not in stored or numbers != list(range(numbers[0], numbers[-1] + 1)):
            return None  # hands undone since the match was read, or a gap in the numbers
        if first == 0:
            return self.start()
        if first not in stored:
            return None
        names = self.names
        _, (_, scores, sets) = stored[first]
        _, (dealer, _, _) = stored[first + 1]  # who dealt the next hand
        scores, sets = _json(scores), _json(sets)
        if (
            None in (dealer, scores, sets)  # rows written outside `_store()`
            or not len(scores) == len(sets) == len(names) > dealer  # seats changed meanwhile
        ):
            return None
        return rules.MatchState(
            ruleset=self.ruleset(),
            players=names,
            scores=dict(zip(names, scores, strict=True)),
            dealer=names[dealer],
            hands=first,
            sets=dict(zip(names, sets, strict=True)),
        )

    def state_before(self, number: int) -> tuple[rules.MatchState, rules.Hand | None] | None:
        """The match as it stood before hand `number` was played, and that hand as stored
        (None for the next hand, not played yet): what the hand form for `number`, a new hand
        or an edit, is drawn and checked on. None for a hand past the next one.

        Read in one statement, without folding the match: the engine plays hand number − 1
        again on the verdict stored with the hand before it, so that a match that hand won
        is over, as the engine says.
        """
        if number < 1:
            return None
        first = max(number - 2, 0)  # the hand whose verdict it starts from
        stored = self._stored_hands(first, number)
        hand, _ = stored.get(number, (None, None))
        if number == 1:
            return self.start(), hand
        before = self._verdict_after(stored, first)
        if before is None:  # no hand number − 1, or rows not as `_store()` writes them
            hands = self.game_hands()
            if number > len(hands) + 1:
                return None
            state, _ = self.replay(hands[: number - 1])
            return state, hands[number - 1] if number <= len(hands) else None
        return rules.play(before, stored[number - 1][0])[0], hand

    def replay_latest(self, count: int):
        """The match and the results of (at least) its last `count` hands, as `replay()` has
        them, without folding the whole match: the engine plays those hands again from the
        verdict stored with the hand before them. Read in one statement."""
        first = self.hands_played - max(count, 1)  # the hand whose verdict they start from
        if first < 1:
            return self.replay()
        stored = self._stored_hands(first)
        before = self._verdict_after(stored, first)
        if before is None or len(stored) <= count:  # hands undone since the match was read
            return self.replay()
        return rules.replay(before, [hand for hand, _ in list(stored.values())[1:]])

    def score_race(self) -> tuple[rules.MatchState, list[tuple[int, list[int]]]]:
        """The match as it stands, and every seat's score after each hand, in seat order: as
        `_store()` stored them with the hands, in one statement (only the last hand is played
        again, for who won)."""
        stored = self._stored_hands(1)
        last = len(stored)  # numbered 1 to `last`, unless `_verdict_after` finds a gap
        if not last:
            return self.start(), []
        scores = [_json(verdict[1]) for _, verdict in stored.values()]
        before = self._verdict_after(stored, last - 1)
        if before is None or any(s is None or len(s) != len(self.names) for s in scores):
            state, results = self.replay()
            return state, [(r.number, [r.scores[p] for p in state.players]) for r in results]
        return rules.play(before, stored[last][0])[0], list(zip(stored, scores, strict=True))

    def to_file(self) -> matchfile.Match:
        return matchfile.Match(
            self.preset,
            self.ruleset(),
            self.stakes(),
            self.names,
            self.names[self.first_dealer],
            tuple(self.game_hands()),
            timezone.localtime(self.played_at),
        )

    def clean(self):
        if self.pk is None:
            return
        try:
            self.replay()
        except rules.RuleError as e:
            raise ValidationError(e.located()) from e

    def _locked(self) -> tuple[Match, list[rules.Hand]]:
        """The match row locked until the transaction ends, and its hands as they are now.

        Every write to a match's hands starts here, so writes to one match take turns (on
        SQLite the IMMEDIATE transaction is the lock) and each sees what the last one stored.
        It takes the group's turn first (`_groups_turn`), as every other write to the group
        does before it locks a match, so that no two writes wait for each other: a save adds
        to its players' sums and moves the group's version on.
        """
        _groups_turn(self.group_id)
        match = Match.objects.with_seats().select_for_update().get(pk=self.pk)
        return match, match.game_hands()

    @transaction.atomic
    def record(self, hands: list[rules.Hand]) -> rules.MatchState:
        """Store the match's hands as `hands`, after the engine accepts all of them.

        Raises RuleError (with `.hand`) and stores nothing if any hand breaks a rule.
        """
        match, stored = self._locked()
        state, _ = match._store_rescored(stored, hands)
        self.version, self.finished = match.version, match.finished
        self.hands_played, self.next_dealer = match.hands_played, match.next_dealer
        return state

    @transaction.atomic
    def add_hand(self, number: int, hand: rules.Hand, version: int | None, by=None):
        """Save hand `number` from a page drawn at `version`: (the match as it is now, its
        replay). The same hand arriving twice (a double tap, a resent request, two phones
        entering it) is stored once; anything else from an out-of-date page raises `Stale`.
        """
        match, stored = self._locked()
        hand = _seated(hand, self.names, match.names)
        if 1 <= number <= len(stored) and stored[number - 1] == hand:
            return match, match.replay(stored)
        if version != match.version or number != len(stored) + 1:
            raise Stale(match, len(stored))
        replayed = match._store(stored, [*stored, hand])
        Change.note(match, by, Change.Kind.SAVED, number, after=hand)
        return match, replayed

    @transaction.atomic
    def change_hand(self, number: int, hand: rules.Hand, version: int | None, by=None) -> bool:
        """Replace hand `number` with `hand`; every later hand is checked and scored again."""
        match, stored = self._locked()
        hand = _seated(hand, self.names, match.names)
        if 1 <= number <= len(stored) and stored[number - 1] == hand:
            return False
        if version != match.version or not 1 <= number <= len(stored):
            raise Stale(match, len(stored))
        match._store(stored, [*stored[: number - 1], hand, *stored[number:]])
        Change.note(match, by, Change.Kind.EDITED, number, stored[number - 1], hand)
        return True

    @transaction.atomic
    def undo_hand(self, number: int, version: int | None, by=None) -> bool:
        """Take back the last hand, `number`; False if it is gone already."""
        match, stored = self._locked()
        if len(stored) < number:
            return False
        if version != match.version or number != len(stored):
            raise Stale(match, len(stored))
        match._store(stored, stored[:-1])
        Change.note(match, by, Change.Kind.UNDONE, number, before=stored[-1])
        return True

    def _store(self, stored: list[rules.Hand], hands: list[rules.Hand]):
        """A write from a phone (a hand saved, changed or undone): write the hand rows that
        differ between `stored` and `hands`, and the engine's verdict on the hands from the
        first that differs on, with the row locked. Returns the replay of `hands`."""
        start, state, results = self._replay_to_store(hands)
        if stored == hands:
            return state, results
        changed = self._write_hands(stored, hands, state, results)
        first = changed[0] if changed else len(hands)  # an undo writes no hand
        later = Hand.objects.filter(match=self, number__gt=first).exclude(number__in=changed)
        self._write_verdict(start, state, results, later if first < len(hands) else [])
        return state, results

    def _store_rescored(self, stored: list[rules.Hand], hands: list[rules.Hand]):
        """`_store`, but the verdict on every hand is written anew, even where the hands are
        as stored: after the admin changed the rows themselves. Returns the replay."""
        start, state, results = self._replay_to_store(hands)
        changed = self._write_hands(stored, hands, state, results) if stored != hands else []
        others = Hand.objects.filter(match=self).exclude(number__in=changed)
        self._write_verdict(start, state, results, others, recount=True)
        return state, results

    def _replay_to_store(self, hands: list[rules.Hand]):
        """(start, state, results) of `hands`, as long as the match may hold that many."""
        if len(hands) > MAX_HANDS:
            raise rules.RuleError(
                "bad_file", f"A match can hold at most {MAX_HANDS:,} hands.", hand=MAX_HANDS + 1
            )
        start = self.start()
        return (start, *rules.replay(start, hands))

    def _write_hands(self, stored, hands, state, results) -> list[int]:
        """Write the hands of `hands` that differ from `stored` (each with its verdict), drop
        those past the end, and move the version on. Returns the numbers written."""
        players = {seat.player.name: seat.player for seat in self.seats.all()}
        changed = [n for n, hand in enumerate(hands, 1) if n > len(stored) or stored[n - 1] != hand]
        Hand.objects.filter(match=self).filter(
            Q(number__in=changed) | Q(number__gt=len(hands))
        ).delete()
        rows = [(n, hands[n - 1], hand_verdict(state.players, results[n - 1])) for n in changed]
        Hand.store_all(self, rows, players)
        self.version += 1
        return changed

    def _write_verdict(self, start, state, results, rows, recount: bool = False) -> None:
        """Write the engine's verdict: on each hand of `rows` (the others have theirs), on
        the match, and each seat's `Result`; and move the players' sums from the results as
        they were to the new ones (`_move_sums`), or with `recount` (the admin may have
        changed the match's rules, stakes, seats or night) sum their results anew."""
        write_hand_verdicts(list(rows), state.players, results)
        before = _summed_results(self.pk)
        was_finished = self.finished is not None
        self.finished = (self.finished or timezone.now()) if state.finished else None
        self.hands_played = state.hands
        self.next_dealer = state.players.index(state.dealer)
        self.save(update_fields=["finished", "hands_played", "next_dealer", "version", "updated"])
        Result.objects.filter(match=self).delete()
        after = [
            {"player_id": seat.player_id, **fields}
            for seat, fields in zip(
                self.seats.all(), verdict(start, state, results, self.stakes()), strict=True
            )
        ]
        Result.objects.bulk_create(Result(match=self, **row) for row in after)
        if recount and before:
            recount_sums({row["player_id"] for row in before + after})
        else:
            _move_sums(self, self.night_id, before, was_finished, self.night_id, after)

    @classmethod
    @transaction.atomic
    def create(
        cls,
        group,
        preset: str,
        ruleset: rules.Ruleset,
        stakes: rules.Stakes,
        names,
        first_dealer: str,
        hands=(),
        played_at=None,
        by=None,
        night_of_its_own: bool = False,
    ) -> Match:
        """A new match of `group` (or of an account's own group) from the engine's terms;
        raises RuleError and stores nothing if bad. `by` is the account that began it. A name
        saved before in other capitals or spaces is that player, spelled as saved. It joins
        the night it was begun in, or with `night_of_its_own` makes a night alone."""
        group = Group.of(group)
        rules.new_match(ruleset, names, first_dealer)
        rules.check_people(names)
        _check_fits(names, stakes)
        _groups_turn(group.pk)
        players = seat_players(group, names)
        spelling = {name: p.name for name, p in zip(names, players, strict=True)}
        names, first_dealer = [p.name for p in players], spelling[first_dealer]
        hands = [rules.respell(hand, spelling) for hand in hands]
        played_at = played_at or timezone.now()
        match = cls.objects.create(
            group=group,
            night=Night.objects.create(group=group)
            if night_of_its_own
            else Night.around(group, played_at),
            preset=preset,
            options=ruleset.options(),
            per_game_cents=stakes.per_game,
            per_point_cents=stakes.per_point,
            per_set_cents=stakes.per_set,
            currency=stakes.currency,
            first_dealer=list(names).index(first_dealer),
            played_at=played_at,
        )
        for position, player in enumerate(players):
            Seat.objects.create(match=match, player=player, position=position)
        match.record(hands)
        Change.note(match, by, Change.Kind.STARTED, len(hands))
        return match

    @classmethod
    def from_file(cls, group, m: matchfile.Match, by=None) -> Match:
        """The match of a match file. One that doesn't say when it was played (an old file
        restored) is dated by its import, but settled on a night of its own: a restore of many
        such files is never one night of all of them, nor joins tonight's."""
        return cls.create(
            group,
            m.preset,
            m.ruleset,
            m.stakes,
            m.players,
            m.first_dealer,
            m.hands,
            m.played_at,
            by=by,
            night_of_its_own=m.played_at is None,
        )

    @classmethod
    @transaction.atomic
    def import_file(cls, group, m: matchfile.Match, by=None) -> tuple[Match, bool]:
        """Store a match file's match unless the group has it already: (match, stored)."""
        group = Group.of(group)
        _groups_turn(group.pk)
        same = cls.objects.filter(group=group).same_as(m)
        if same is not None:
            return same, False
        return cls.from_file(group, m, by), True


def _check_fits(names, stakes: rules.Stakes):
    """What the rules allow but the columns can't hold, refused in words rather than a crash."""
    for name in names:
        if len(name) > rules.NAME_LENGTH:
            raise rules.RuleError(
                "bad_table",
                f"{name[:20]}… is too long a name; keep it to {rules.NAME_LENGTH} letters.",
                "players",
            )
    if len(stakes.currency) > rules.CURRENCY_LENGTH:
        raise rules.RuleError(
            "bad_file", "The currency should be a short label such as USD or $.", "currency"
        )
    if max(getattr(stakes, name) for name in rules.STAKE_NAMES) > rules.MAX_STAKE_CENTS:
        raise rules.RuleError("bad_file", rules.STAKE_TOO_BIG, "per_game")


class Seat(models.Model):
    match = models.ForeignKey(Match, models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, models.RESTRICT, related_name="seats")
    position = models.PositiveSmallIntegerField(help_text="clockwise, from 0")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["match", "player"], name="seat_player_unique"),
            models.CheckConstraint(
                condition=Q(position__lt=max(rules.SEAT_COUNTS)), name="seat_position_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in seat {self.position + 1}"

    def get_absolute_url(self) -> str:
        return self.match.get_absolute_url()


class Hand(models.Model):
    match = models.ForeignKey(Match, models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()
    upcard = models.CharField(max_length=8, choices=SUIT_CHOICES)
    # Blank where the rules give the trump (a turned automatic suit); "none" for no trump.
    trump = models.CharField(
        max_length=8, blank=True, choices=[*SUIT_CHOICES, (rules.NO_TRUMP, "No trump")]
    )
    maker = models.ForeignKey(Player, models.RESTRICT, null=True, blank=True, related_name="+")
    bid = models.PositiveSmallIntegerField(null=True, blank=True)
    passed = models.BooleanField(default=False, help_text="everybody passed and it was redealt")
    created = models.DateTimeField(auto_now_add=True)
    # The engine's verdict on the hand (`hand_verdict`), written with it by `Match._store()`:
    # a page reads the match before a hand from the one before it, not by folding the match.
    dealer = models.PositiveSmallIntegerField(null=True, blank=True, help_text="seat, from 0")
    scores = models.JSONField(null=True, blank=True, help_text="every seat's score after it")
    sets = models.JSONField(
        null=True, blank=True, help_text="the hands every seat has fallen short, after it"
    )

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="hand_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="hand_number_from_1"),
            models.CheckConstraint(
                condition=Q(bid__isnull=True) | Q(bid__gte=1, bid__lte=rules.TRICKS),
                name="hand_bid_range",
            ),
            models.CheckConstraint(
                condition=Q(passed=False) | Q(maker__isnull=True, bid__isnull=True, trump=""),
                name="hand_passed_is_bare",
            ),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("games:hand_edit", args=[self.match_id, self.number])

    def to_rules(self, plays=None) -> rules.Hand:
        """The hand for the engine; `plays`, when given, replace the stored players' parts."""
        plays = list(self.plays.all()) if plays is None else plays
        return rules.Hand(
            upcard=self.upcard,
            trump=self.trump or None,
            maker=self.maker.name if self.maker else None,
            bid=self.bid,
            dropped=tuple(p.player.name for p in plays if p.dropped),
            tricks={p.player.name: p.tricks for p in plays if not p.dropped},
            passed=self.passed,
        )

    @staticmethod
    def store_all(match: Match, hands: list[tuple[int, rules.Hand, dict]], players: dict):
        """Write these (number, hand, verdict) rows, the verdict as `hand_verdict()` gives it,
        in three statements however many there are (the hands, their ids, their plays): a
        thousand hands imported cost no more a hand than one saved. Plain SQL: building a
        model instance and its compiled insert took far longer than the database's write."""
        if not hands:
            return
        created = connection.ops.adapt_datetimefield_value(timezone.now())
        scores, sets = Hand._meta.get_field("scores"), Hand._meta.get_field("sets")
        with connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO games_hand (match_id, number, upcard, trump, maker_id, bid, passed,"
                " created, dealer, scores, sets) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s,"
                " %s, %s)",
                [
                    (
                        match.pk,
                        number,
                        hand.upcard,
                        hand.trump or "",
                        players[hand.maker].pk if hand.maker else None,
                        hand.bid,
                        hand.passed,
                        created,
                        verdict["dealer"],
                        scores.get_db_prep_save(verdict["scores"], connection),
                        sets.get_db_prep_save(verdict["sets"], connection),
                    )
                    for number, hand, verdict in hands
                ],
            )
            cursor.execute(
                "SELECT number, id FROM games_hand WHERE match_id = %s AND number >= %s",
                [match.pk, min(number for number, _, _ in hands)],
            )
            ids = dict(cursor.fetchall())
            cursor.executemany(
                "INSERT INTO games_play (hand_id, player_id, dropped, tricks)"
                " VALUES (%s, %s, %s, %s)",
                [
                    play
                    for number, hand, _ in hands
                    for play in [
                        *((ids[number], players[n].pk, True, None) for n in hand.dropped),
                        *((ids[number], players[n].pk, False, t) for n, t in hand.tricks.items()),
                    ]
                ],
            )


class Play(models.Model):
    """One player's part in a hand: dropped out, or played and took some tricks."""

    hand = models.ForeignKey(Hand, models.CASCADE, related_name="plays")
    player = models.ForeignKey(Player, models.RESTRICT, related_name="plays")
    dropped = models.BooleanField(default=False)
    tricks = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "player"], name="play_player_unique"),
            models.CheckConstraint(
                condition=Q(dropped=True, tricks__isnull=True)
                | Q(dropped=False, tricks__isnull=False, tricks__gte=0, tricks__lte=rules.TRICKS),
                name="play_tricks_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {'dropped' if self.dropped else self.tricks}"

    def get_absolute_url(self) -> str:
        return self.hand.get_absolute_url()


def _staked(prefix: str = "") -> Q:
    """A match played for money (of results: `prefix` "match__"): rules.Stakes.__bool__,
    asked of the stake columns."""
    return functools.reduce(
        operator.or_, (Q(**{f"{prefix}{name}_cents__gt": 0}) for name in rules.STAKE_NAMES)
    )


STAKED = _staked("match__")


def _nets(rows, payments) -> dict[str, dict[str, int]]:
    """Each currency's balances: every player's net of `rows` (`ResultSumQuerySet.nets()`,
    their stored sums), plus what they paid of `payments`, minus
    what they were paid. Players come in the order of the first match they played, then by
    name; those only in payments after them. The balances of each currency sum to zero."""
    nets: dict[str, dict[str, int]] = {}
    for currency, name, high, low, _ in rows:
        nets.setdefault(currency, {})[name] = _net(high, low)
    for sign, side in ((1, "payer"), (-1, "payee")):
        for currency, name, cents in sorted(payments.by_currency_and_player(side)):
            mine = nets.setdefault(currency, {})
            mine[name] = mine.get(name, 0) + sign * cents
    return dict(sorted(nets.items()))


# SQLite's SUM stops at 64 bits ("integer overflow"), and 48 of the largest matches the app
# takes win more cents than that (PostgreSQL's SUM of a bigint is exact). So money is summed in
# two parts that cannot overflow, the high and the low 32 bits of each amount, and Python adds
# the two sums up exactly.
_HALF = 2**32


def _net_sum() -> dict:
    """Aggregates of `Result.net_cents` that `_net()` adds up to their exact sum."""
    high = F("net_cents") / _HALF  # rounded toward zero, on both databases
    return {"net_high": Sum(high), "net_low": Sum(F("net_cents") - high * _HALF)}


def _net(high, low) -> int:
    return int(high) * _HALF + int(low)


def _counts() -> dict:
    """How many matches results are of, how many finished, and how many won: aggregates."""
    return {
        "played": Count("pk"),
        "finished": Count("pk", filter=Q(match__finished__isnull=False)),
        "won": Count("pk", filter=Q(won=True)),
    }


def _stats() -> dict:
    """`_counts()` and each field of rules.Tally summed (docs/rules.md §12): aggregates."""
    return {**_counts(), **{f.name: Sum(f.name, default=0) for f in fields(rules.Tally)}}


# A running total of money, written out (built by the ORM, its windows cost four times what
# the database spends running them): each finished match played for money of the players
# `{players}`, numbered in the order they began within `{partition}`, with the net up to it,
# summed in two halves as `_net_sum()`.
RUNNING_SQL = """
    SELECT r.id AS id, m.currency AS currency, m.played_at AS played_at,
        ROW_NUMBER() OVER so_far AS place,
        SUM(r.net_cents / {half}) OVER so_far AS high,
        SUM(r.net_cents - r.net_cents / {half} * {half}) OVER so_far AS low
    FROM games_result r JOIN games_match m ON m.id = r.match_id
    WHERE r.player_id IN ({players}) AND m.finished IS NOT NULL AND ({staked})
    WINDOW so_far AS (
        PARTITION BY {partition} ORDER BY m.played_at, m.id
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )
"""
# A player's running totals kept on their results (`_run_totals`): those of matches that no
# longer count forgotten, then each that counts written where it changed (a match added at
# the end writes one row a player, not every one), and read back at the places a chart
# shows, through the index on (player, place).
FORGET_RUNNING_SQL = """
    UPDATE games_result SET running_place = NULL, running_high = NULL, running_low = NULL
    WHERE player_id IN ({players}) AND running_place IS NOT NULL AND match_id IN (
        SELECT id FROM games_match m WHERE m.finished IS NULL OR NOT ({staked})
    )
"""
RUN_TOTALS_SQL = """
    UPDATE games_result
    SET running_place = run.place, running_high = run.high, running_low = run.low
    FROM ({running}) run
    WHERE games_result.id = run.id AND (
        games_result.running_place IS NULL OR games_result.running_place <> run.place
        OR games_result.running_high <> run.high OR games_result.running_low <> run.low
    )
"""
LAST_RUNNING_SQL = """
    SELECT r.player_id, r.running_place, r.running_high, r.running_low, m.played_at, m.id
    FROM games_result r JOIN games_match m ON m.id = r.match_id
    WHERE r.player_id = %s AND m.currency = %s AND r.running_place IS NOT NULL
        AND r.match_id <> %s
    ORDER BY r.running_place DESC LIMIT 1
"""
RUN_ON_SQL = """
    UPDATE games_result SET running_place = %s, running_high = %s, running_low = %s
    WHERE match_id = %s AND player_id = %s
"""
STORED_RUNNING_SQL = """
    SELECT m.currency, r.running_place, m.played_at, r.running_high, r.running_low
    FROM games_result r JOIN games_match m ON m.id = r.match_id
    WHERE r.player_id = %s AND r.running_place IN ({places})
    ORDER BY m.currency, r.running_place
"""


# A match played for money (rules.Stakes.__bool__), of a match `m`, as `STAKED` asks it.
STAKED_SQL = " OR ".join(f"m.{name}_cents > 0" for name in rules.STAKE_NAMES)


def _running_sql(players: list[int], partition: str) -> str:
    return RUNNING_SQL.format(
        half=_HALF,
        players=", ".join(["%s"] * len(players)),
        staked=STAKED_SQL,
        partition=partition,
    )


def _run_totals(players) -> None:
    """Number these players' finished matches played for money and keep the running total
    of each on its result (`Result.running_place`): written with their sums, wherever a
    match starts or stops counting for them or its money changes."""
    players = sorted(players)
    if not players:
        return
    marks = ", ".join(["%s"] * len(players))
    running = _running_sql(players, "r.player_id, m.currency")
    with connection.cursor() as cursor:
        cursor.execute(FORGET_RUNNING_SQL.format(players=marks, staked=STAKED_SQL), players)
        cursor.execute(RUN_TOTALS_SQL.format(running=running), players)


def _run_on(match: Match, nets: dict[int, int]) -> None:
    """`match`, just counted for its players' money (it ended), with their nets: the next
    place of each player whose latest such match in its currency it is, from their last
    place (one row a player, through the index), else their running totals anew."""
    key = (_moment(match.played_at), match.pk)
    partitions = [(player, match.currency, match.pk) for player in sorted(nets)]
    last = {row[0]: row[1:] for row in _latest(LAST_RUNNING_SQL, partitions)}
    ahead, anew = [], []
    for player, net in nets.items():
        place, high, low, played_at, pk = last.get(player, (0, 0, 0, None, None))
        if place and (_moment(played_at), pk) > key:
            anew.append(player)  # a later match of theirs counts already: it moves up
            continue
        # As the window adds them up (RUNNING_SQL): each amount's halves rounded toward zero.
        half = abs(net) // _HALF * (1 if net >= 0 else -1)
        ahead.append((place + 1, high + half, low + net - half * _HALF, match.pk, player))
    with connection.cursor() as cursor:
        cursor.executemany(RUN_ON_SQL, ahead)
    _run_totals(anew)


def running_money(players, shown: dict[str, set[int]]) -> dict[str, list[tuple[datetime, int]]]:
    """The money `players` (ids) won over their finished matches played for money, a running
    total a currency, match by match in the order they began: (when the match began, the
    total after it) after each match whose place in that order (from 0) is among the
    currency's `shown`. One player's are read from their results' running totals, only the
    places shown; several players' together (a person's in each of their groups) are added
    up by the database, every match read."""
    places = sorted({i + 1 for kept in shown.values() for i in kept})
    if not players or not places:
        return {}
    marks = ", ".join(["%s"] * len(places))
    if len(players) == 1:
        rows = _fetch(STORED_RUNNING_SQL.format(places=marks), *players, *places)
    else:
        running = _running_sql(list(players), "m.currency")
        sql = (
            f"SELECT currency, place, played_at, high, low FROM ({running}) running "
            f"WHERE place IN ({marks}) ORDER BY currency, place"
        )
        rows = _fetch(sql, *players, *places)
    out: dict[str, list[tuple[datetime, int]]] = {}
    for currency, place, played_at, high, low in rows:
        if place - 1 in shown.get(currency, ()):
            out.setdefault(currency, []).append((_moment(played_at), _net(high, low)))
    return out


class ResultQuerySet(models.QuerySet["Result"]):
    def finished(self):
        return self.filter(match__finished__isnull=False)

    def stats(self) -> dict:
        """The counts of docs/rules.md §12 summed over these results: matches, finished, wins
        and each field of rules.Tally."""
        return self.aggregate(**_stats())

    def money_by_preset(self) -> dict[str, dict[str, int]]:
        """`money()` for each preset played."""
        rows = self.finished().filter(STAKED).values_list("match__preset", "match__currency")
        out: dict[str, dict[str, int]] = {}
        for preset, currency, high, low in rows.annotate(**_net_sum()).order_by(
            "match__preset", "match__currency"
        ):
            out.setdefault(preset, {})[currency] = _net(high, low)
        return out

    def nets_by_night(self) -> list[tuple[str, str, int, int, datetime]]:
        """(currency, name, night, net, when they began there) over the finished matches
        played for money, by night, the latest first."""
        rows = (
            self.finished()
            .filter(STAKED)
            .values_list("match__currency", "player__name", "match__night")
            .annotate(**_net_sum(), started=Min("match__played_at"))
            .order_by("-started", "match__night", "player__name")
        )
        return [(c, name, night, _net(h, low), at) for c, name, night, h, low, at in rows]

    def money(self) -> dict[str, int]:
        """Net money in cents by currency, over the finished matches played for money."""
        rows = self.finished().filter(STAKED).values_list("match__currency")
        rows = rows.annotate(**_net_sum()).order_by("match__currency")
        return {currency: _net(high, low) for currency, high, low in rows}


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

    class Meta:
        abstract = True


class Result(Tallied):
    """One seat's part in the engine's verdict on its match: the score as it stands, and once
    the match is over who won and the money (docs/rules.md §6), with the counts of §12.

    Written by `Match._write_verdict()` in the transaction that writes the hands, and only
    there, so lists, records and statistics read it instead of replaying every match.
    """

    match = models.ForeignKey(Match, models.CASCADE, related_name="results")
    player = models.ForeignKey(Player, models.RESTRICT, related_name="results")
    seat = models.PositiveSmallIntegerField(help_text="clockwise, from 0")
    score = models.IntegerField()
    won = models.BooleanField(default=False)
    # Stakes up to rules.MAX_STAKE_CENTS times a score up to a million: beyond 32 bits.
    net_cents = models.BigIntegerField(default=0, help_text="money won (+) or lost (−), in cents")
    short = models.PositiveSmallIntegerField(
        default=0, help_text="hands they fell short: set, or played and took no trick (§6)"
    )
    points = models.IntegerField(default=0)  # the last of rules.Tally's counts (Tallied)
    # Where the match counts for the player's money (finished, played for money): its place
    # among their such matches in its currency, in the order they began (from 1), and their
    # net over those up to it (running_high × 2³² + running_low); None where it does not
    # count. Kept by `_run_totals()`, with the sums: a chart of a long history reads the
    # few places it shows, never every match (`running_money`).
    running_place = models.PositiveIntegerField(null=True, blank=True)
    running_high = models.BigIntegerField(null=True, blank=True)
    running_low = models.BigIntegerField(null=True, blank=True)

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

TALLY_FIELDS = tuple(f.name for f in fields(rules.Tally))
# A result's columns that its player's sums add up.
SUMMED = ("won", "net_cents", *TALLY_FIELDS)
# The columns of `ResultSum` that add up (its money and its first match are kept beside them).
COUNTED = ("played", "finished", "won", "staked", *TALLY_FIELDS)


def _split(cents: int) -> tuple[int, int]:
    """An exact amount as the two columns that keep a sum of money: high × 2³² + low."""
    return divmod(cents, _HALF)


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
            "preset", "currency", *COUNTED, "net_high", "net_low", "first"
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
                cents = _net(row["net_high"], row["net_low"])
                money[currency] = money.get(currency, 0) + cents
                preset_money = money_by_preset.setdefault(preset, {})
                preset_money[currency] = preset_money.get(currency, 0) + cents
                staked[currency] = staked.get(currency, 0) + row["staked"]
                first[currency] = min(first.get(currency, row["first"]), row["first"])
        order = sorted(by_preset, key=lambda preset: (-by_preset[preset]["played"], preset))
        by_preset = {preset: by_preset[preset] for preset in order}
        return Summed(stats, by_preset, money, money_by_preset, staked, first)

    def nets(self):
        """(currency, name, net_high, net_low, first) of each player with a finished match
        played for money, in the order `_nets()` reads them."""
        return (
            self.filter(staked__gt=0)
            .values_list("currency", "player__name")
            .annotate(high=Sum("net_high"), low=Sum("net_low"), first=Min("first"))
            .order_by("currency", "first", "player__name")
        )


class ResultSum(Tallied):
    """A player's results (`Result`) summed over their matches of one preset played in one
    currency: the §12 counts that `ResultQuerySet.stats()` adds up, and over the finished
    matches played for money (`staked`) the money and when the first of them began. Their
    statistics, record, chart and balances read these few rows, never every match of a long
    history.

    Written by `_move_sums()` in the transaction that writes the results it sums, under the
    group's turn, and only there; `recount_sums()` sums them anew where results move
    wholesale (a merge, the admin's edit of a match)."""

    player = models.ForeignKey(Player, models.CASCADE, related_name="result_sums")
    preset = models.CharField(max_length=20)
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    played = models.PositiveIntegerField(default=0)
    finished = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    staked = models.PositiveIntegerField(default=0, help_text="finished matches played for money")
    # The money won (+) or lost (−) over those, in cents: net_high × 2³² + net_low (a sum of
    # the largest stakes can pass 64 bits).
    net_high = models.BigIntegerField(default=0)
    net_low = models.BigIntegerField(default=0)
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


LATEST_NIGHTS_SQL = """
    SELECT player_id, currency, night_id, net_high, net_low, started FROM games_nightsum
    WHERE player_id = %s AND currency = %s ORDER BY started DESC, night_id LIMIT %s
"""


class NightSum(models.Model):
    """A player's money over the finished matches of one night played for money in one
    currency, and when the first of them began: what a balance's workings list night by
    night, the latest first, reading a dozen rows a player, never every match. Written with
    `ResultSum`, by the same two functions."""

    night = models.ForeignKey(Night, models.CASCADE, related_name="sums")
    player = models.ForeignKey(Player, models.CASCADE, related_name="night_sums")
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    matches = models.PositiveIntegerField(default=0)
    net_high = models.BigIntegerField(default=0)
    net_low = models.BigIntegerField(default=0)
    started = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["night", "player", "currency"], name="night_sum_unique"
            ),
        ]
        indexes = [
            models.Index(fields=["player", "currency", "-started"], name="night_sum_latest"),
        ]

    def __str__(self) -> str:
        return f"{self.player} on {self.night_id}: {_net(self.net_high, self.net_low)}"

    def get_absolute_url(self) -> str:
        return self.night.get_absolute_url()

    @staticmethod
    def latest(keys: list[tuple[int, str]], most: int) -> dict[tuple[int, str], list[tuple]]:
        """The `most` latest nights of each (player, currency) of `keys`: (night, net, when
        the player began there), the latest first."""
        rows = _latest(LATEST_NIGHTS_SQL, [(*key, most) for key in keys])
        out: dict[tuple[int, str], list[tuple]] = {}
        for player, currency, night, high, low, started in rows:
            out.setdefault((player, currency), []).append(
                (night, _net(high, low), _moment(started))
            )
        return out


def _parts(match: Match, results: list[dict], finished: bool) -> tuple[dict, dict]:
    """What `results` of `match` (rows of `SUMMED` with their `player_id`), the match then
    finished or not, add to their players' sums: {player: `COUNTED` and "net"} for
    `ResultSum`, and for `NightSum` {player: "matches" and "net"} where the match counts
    (finished and played for money)."""
    counted = finished and bool(match.stakes())
    sums, nights = {}, {}
    for row in results:
        net = row["net_cents"] if counted else 0
        sums[row["player_id"]] = {
            "played": 1,
            "finished": int(finished),
            "won": int(row["won"]),
            "staked": int(counted),
            **{name: row[name] for name in TALLY_FIELDS},
            "net": net,
        }
        if counted:
            nights[row["player_id"]] = {"matches": 1, "net": net}
    return sums, nights


def _first_counted(results) -> datetime | None:
    """When the first of these results' finished matches played for money began."""
    counted = results.finished().filter(STAKED)
    return counted.aggregate(first=Min("match__played_at"))["first"]


# Every save reads and writes its players' sums: the statements are written out, as Django's
# building of them cost more than the rest of a save (its bulk_update builds a CASE of every
# row for every column).


def _summed_results(match_id: int) -> list[dict]:
    """The match's stored results: their `SUMMED` columns and their `player_id`."""
    columns = ["player_id", *SUMMED]
    sql = f"SELECT {', '.join(columns)} FROM games_result WHERE match_id = %s"
    return [dict(zip(columns, row, strict=True)) for row in _fetch(sql, match_id)]


def _sums_of(model, column: str, value, players) -> list:
    """The sums (`ResultSum`, `NightSum`) of these players whose `column` is `value`."""
    players = sorted(players)
    if not players:
        return []
    marks = ", ".join(["%s"] * len(players))
    sql = (
        f"SELECT {_columns(model, 't')} FROM {model._meta.db_table} t "
        f"WHERE t.{column} = %s AND t.player_id IN ({marks})"
    )
    return [_loaded(model, row) for row in _fetch(sql, value, *players)]


def _save(model, rows: list, count: str, columns: list[str]) -> None:
    """Store these sums, a statement a row: those that now count nothing (`count` 0) go."""
    gone = [r.pk for r in rows if r.pk and not getattr(r, count)]
    if gone:
        model.objects.filter(pk__in=gone).delete()
    table, fields = model._meta.db_table, [model._meta.get_field(name) for name in columns]
    every = [field for field in model._meta.concrete_fields if not field.primary_key]

    def values(row, fields) -> list:
        return [field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields]

    new = [r for r in rows if r.pk is None and getattr(r, count)]
    kept = [r for r in rows if r.pk and getattr(r, count)]
    with connection.cursor() as cursor:
        if new:
            names, marks = ", ".join(f.column for f in every), ", ".join(["%s"] * len(every))
            sql = f"INSERT INTO {table} ({names}) VALUES ({marks})"
            cursor.executemany(sql, [values(r, every) for r in new])
        if kept:
            sets = ", ".join(f"{field.column} = %s" for field in fields)
            sql = f"UPDATE {table} SET {sets} WHERE id = %s"
            cursor.executemany(sql, [values(r, fields) + [r.pk] for r in kept])


def _move_sums(
    match: Match, night_before: int, before: list[dict], was_finished: bool, night: int, after
) -> None:
    """Take the results `before` of `match` (rows of `SUMMED` with their `player_id`), as
    they were on `night_before`, the match then finished or not, out of their players' sums
    (`ResultSum`, `NightSum`), and put the match's results `after`, on `night`, in: written
    after the results, in the transaction that writes them, under the group's turn."""
    old, old_nights = _parts(match, before, was_finished)
    new, new_nights = _parts(match, after, match.finished is not None)
    at, currency = match.played_at, match.currency
    key = {"preset": match.preset, "currency": currency}
    players = {*old, *new}
    found = _sums_of(ResultSum, "preset", match.preset, players)
    stored = {s.player_id: s for s in found if s.currency == currency}
    sums = []
    for player in players:
        was, now = old.get(player, {}), new.get(player, {})
        moved = {name: now.get(name, 0) - was.get(name, 0) for name in (*COUNTED, "net")}
        if not any(moved.values()):
            continue
        s = stored.get(player) or ResultSum(player_id=player, **key)
        for name in COUNTED:
            setattr(s, name, getattr(s, name) + moved[name])
        s.net_high, s.net_low = _split(_net(s.net_high, s.net_low) + moved["net"])
        if now.get("staked"):
            s.first = min(s.first or at, at)
        elif was.get("staked") and s.first == at:  # their first such match no longer counts
            mine = Result.objects.filter(player=player, match__preset=match.preset)
            s.first = _first_counted(mine.filter(match__currency=currency))
        if not s.staked:
            s.first = None
        sums.append(s)
    _save(ResultSum, sums, "played", [*COUNTED, "net_high", "net_low", "first"])

    parts: dict[tuple[int, int], tuple[dict, dict]] = {
        (night_before, p): (part, {}) for p, part in old_nights.items()
    }
    for p, part in new_nights.items():
        parts[night, p] = (parts.get((night, p), ({}, {}))[0], part)
    if not parts:
        return
    rows = {
        (n.night_id, n.player_id): n
        for on in {night_before, night}
        for n in _sums_of(NightSum, "night_id", on, {*old_nights, *new_nights})
        if n.currency == currency
    }
    nights = []
    for (on, player), (was, now) in parts.items():
        moved = {name: now.get(name, 0) - was.get(name, 0) for name in ("matches", "net")}
        if not any(moved.values()):
            continue
        n = rows.get((on, player)) or NightSum(
            night_id=on, player_id=player, currency=currency, started=at
        )
        n.matches += moved["matches"]
        n.net_high, n.net_low = _split(_net(n.net_high, n.net_low) + moved["net"])
        if now:
            n.started = min(n.started, at)
        elif n.matches and n.started == at:  # their first such match that night has gone
            mine = Result.objects.filter(player=player, match__night=on)
            n.started = _first_counted(mine.filter(match__currency=currency)) or at
        nights.append(n)
    _save(NightSum, nights, "matches", ["matches", "net_high", "net_low", "started"])
    # The match counted for its players' money before or after: their running totals, on
    # its end the next place of each player whose latest such match it is (a match played
    # to its end, a file imported oldest first), else anew (its results were written anew,
    # or went, or its place among theirs moved).
    if new_nights and not old_nights:
        _run_on(match, {p: part["net"] for p, part in new_nights.items()})
    else:
        _run_totals({player for _, player in parts})


def recount_sums(players) -> None:
    """Sum these players' results anew (`ResultSum`, `NightSum`), from every stored result:
    where results change hands wholesale (a merge), or their match's rules, stakes or night
    may have changed (the admin), and their running totals (`_run_totals`). The sums
    `_move_sums()` keeps are these."""
    players = list(players)
    counted = Q(match__finished__isnull=False) & STAKED
    high = F("net_cents") / _HALF
    rows = (
        Result.objects.filter(player__in=players)
        .values("player", "match__preset", "match__currency")
        .annotate(
            **_stats(),
            staked=Count("pk", filter=counted),
            high=Sum(high, filter=counted, default=0),
            low=Sum(F("net_cents") - high * _HALF, filter=counted, default=0),
            first=Min("match__played_at", filter=counted),
        )
        .order_by()
    )
    sums = []
    for row in rows:
        net_high, net_low = _split(_net(row.pop("high"), row.pop("low")))
        player, preset, currency = (
            row.pop(k) for k in ("player", "match__preset", "match__currency")
        )
        sums.append(
            ResultSum(
                player_id=player,
                preset=preset,
                currency=currency,
                net_high=net_high,
                net_low=net_low,
                **row,
            )
        )
    by_night = (
        Result.objects.filter(player__in=players)
        .finished()
        .filter(STAKED)
        .values_list("match__night", "player", "match__currency")
        .annotate(matches=Count("pk"), **_net_sum(), started=Min("match__played_at"))
        .order_by()
    )
    nights = []
    for night, player, currency, matches, high, low, started in by_night:
        net_high, net_low = _split(_net(high, low))
        nights.append(
            NightSum(
                night_id=night,
                player_id=player,
                currency=currency,
                matches=matches,
                net_high=net_high,
                net_low=net_low,
                started=started,
            )
        )
    ResultSum.objects.filter(player__in=players).delete()
    NightSum.objects.filter(player__in=players).delete()
    ResultSum.objects.bulk_create(sums)
    NightSum.objects.bulk_create(nights)
    _run_totals(players)


# --- Groups: who keeps the table ------------------------------------------------------------


class Role(models.TextChoices):
    """What a member may do (one table of it, in `Role.allows`): viewers see every page of
    the group, scorers also keep score, owners also run the group."""

    VIEWER = "viewer", "Viewer"
    SCORER = "scorer", "Scorer"
    OWNER = "owner", "Owner"

    def allows(self, needed: Role) -> bool:
        order = [Role.VIEWER, Role.SCORER, Role.OWNER]
        return order.index(self) >= order.index(needed)


GROUP_NAME_LENGTH = 60
INVITE_DAYS = 7


class GroupQuerySet(models.QuerySet["Group"]):
    def of(self, user):
        """The groups `user` is a member of."""
        return self.filter(memberships__user=user)

    def last_owned_by(self, user):
        """The groups of which `user` is the only owner."""
        others = Membership.objects.filter(role=Role.OWNER).exclude(user=user)
        owned = self.filter(memberships__user=user, memberships__role=Role.OWNER)
        return owned.exclude(pk__in=others.values("group"))


class Group(models.Model):
    """The friends who keep one table: its players, matches and nights are theirs."""

    name = models.CharField(max_length=GROUP_NAME_LENGTH)
    created = models.DateTimeField(auto_now_add=True)
    # The group every account is given (named after it): the default where nothing else
    # is picked. Gone with the account, unless others are in it (then it stays theirs).
    home_of = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        models.SET_NULL,
        null=True,
        blank=True,
        related_name="home_group",
    )
    # Moves on with every write to what the group's pages show, in its transaction
    # (`_groups_turn`): a region of a page is drawn once a version (games/regions.py).
    version = models.PositiveBigIntegerField(default=0)

    objects = GroupQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.CheckConstraint(condition=~Q(name=""), name="group_name_not_empty")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("games:group_detail", args=[self.pk])

    @classmethod
    def home(cls, user) -> Group:
        """The account's own group, made (with the account as its owner) on first need, so
        that an account made any way (sign-up, `createsuperuser`, the admin) has one."""
        group = cls.objects.filter(home_of=user).first()
        if group is None:
            with transaction.atomic():
                user.__class__.objects.select_for_update().filter(pk=user.pk).values("pk").get()
                group, _ = cls.objects.get_or_create(
                    home_of=user, defaults={"name": user.get_username()[:GROUP_NAME_LENGTH]}
                )
                Membership.objects.get_or_create(
                    group=group, user=user, defaults={"role": Role.OWNER}
                )
        return group

    @classmethod
    def of(cls, group_or_user) -> Group:
        """A group, or an account's own group."""
        return group_or_user if isinstance(group_or_user, Group) else cls.home(group_or_user)

    def moved_on(self) -> bool:
        """Whether anything of the group was written (or the group deleted) since this row of
        it was read (`version`)."""
        return _fetch(GROUP_VERSION_SQL, self.pk) != [(self.version,)]

    def role_of(self, user) -> Role | None:
        """The user's role in the group; None for anyone else."""
        if not user.is_authenticated:
            return None
        # Asked on every page of a group: plain SQL, a tenth of what the ORM takes to build it.
        rows = _fetch(ROLE_SQL, self.pk, user.pk)
        return Role(rows[0][0]) if rows else None

    def owner_names(self) -> list[str]:
        owners = self.memberships.filter(role=Role.OWNER).order_by("created", "pk")
        return list(owners.values_list("user__username", flat=True))

    def currencies(self) -> list[str]:
        """The currencies the group has played for money in: what a payment may be in."""
        matches = Match.objects.filter(group=self).filter(_staked())
        return sorted(set(matches.order_by().values_list("currency", flat=True).distinct()))

    def balances(self) -> list[SettleUp]:
        """Each currency's balances over every night and payment of the group (`_nets`, of
        its players' stored sums), and the payments that settle them: the fewest, as for a
        night (§11), wherever rules.settle_nets can search for them."""
        nets = _nets(ResultSum.objects.filter(player__group=self).nets(), self.payments.all())
        return [SettleUp(c, net, *rules.settle_nets(net)) for c, net in nets.items()]

    @staticmethod
    def balance_of(player: Player) -> dict[str, int]:
        """A player's balance in each currency, as `balances()` has it, read for them alone."""
        mine = Payment.objects.filter(Q(payer=player) | Q(payee=player))
        nets = _nets(player.result_sums.nets(), mine)
        return {c: net[player.name] for c, net in nets.items() if player.name in net}

    @transaction.atomic
    def set_role(self, user, role: str | None) -> None:
        """Make a member an owner, a scorer or a viewer, or remove them (None). ValidationError
        if it would leave the group without an owner."""
        _groups_turn(self.pk)
        member = self.memberships.filter(user=user).first()
        if member is None:
            raise ValidationError(f"{user.get_username()} is not in {self}.")
        owners = self.memberships.filter(role=Role.OWNER)
        if member.role == Role.OWNER and role != Role.OWNER and owners.count() == 1:
            raise ValidationError(
                f"{user.get_username()} is the only owner of {self}: make someone else an "
                "owner first."
            )
        if role is None:
            member.delete()
            # Their own group no longer: the next time they need one, a new one is made.
            Group.objects.filter(pk=self.pk, home_of=user).update(home_of=None)
        else:
            self.memberships.filter(pk=member.pk).update(role=role)

    @transaction.atomic
    def join(self, user, role: str, invited=None) -> tuple[Membership, bool]:
        """Take `user` in with `role`; a member already keeps their role: (member, joined).
        ValidationError for one an owner removed after the invitation of `invited` was made:
        an old link does not let them back in."""
        _groups_turn(self.pk)
        removed = Removal.objects.filter(group=self, user=user)
        if invited is not None and removed.filter(at__gt=invited).exists():
            raise ValidationError(
                f"An owner of {self} took you out of the group after this invitation was "
                "made. Ask one of them for a new invitation."
            )
        removed.delete()
        return Membership.objects.get_or_create(group=self, user=user, defaults={"role": role})

    @transaction.atomic
    def remove(self, user) -> None:
        """An owner takes `user` out of the group: gone at once, and the invitations made
        before do not let them back in (`join`)."""
        self.set_role(user, None)
        Removal.objects.update_or_create(group=self, user=user, defaults={"at": timezone.now()})


class Removal(models.Model):
    """When an owner took a member out of a group (not one who left)."""

    group = models.ForeignKey(Group, models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["group", "user"], name="removal_unique")]

    def __str__(self) -> str:
        return f"{self.user} taken out of {self.group}"

    def get_absolute_url(self) -> str:
        return self.group.get_absolute_url()


class Membership(models.Model):
    group = models.ForeignKey(Group, models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=Role.choices)
    # "This is me": the player this member is at the group's table.
    player = models.ForeignKey(
        Player, models.SET_NULL, null=True, blank=True, related_name="memberships"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["group", "created", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["group", "user"], name="membership_unique"),
            models.UniqueConstraint(
                fields=["group", "player"],
                condition=Q(player__isnull=False),
                name="membership_player_unique",
            ),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="membership_role_known"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.group} ({self.role})"

    def get_absolute_url(self) -> str:
        return self.group.get_absolute_url()


# What a page over a group reads first: the user's memberships with their groups (the role,
# the group's version, the switch between groups) and the player or night it shows. Django's
# building of these queries costs many times their running (bench/records_bench.py): they are
# written out, and their rows made into instances as the ORM would load them.


def _columns(model, alias: str) -> str:
    return ", ".join(f"{alias}.{field.column}" for field in model._meta.concrete_fields)


def _loaded(model, values):
    """An instance of `model` from its columns (`_columns`) as a query written out read them."""
    fields = model._meta.concrete_fields
    values = [
        _moment(value) if isinstance(field, models.DateTimeField) and value is not None else value
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], values)


def memberships_of(user_id: int) -> list[Membership]:
    """The user's memberships, each with its group, in the order of the groups' names."""
    sql = (
        f"SELECT {_columns(Membership, 'm')}, {_columns(Group, 'g')} FROM games_membership m "
        "JOIN games_group g ON g.id = m.group_id WHERE m.user_id = %s ORDER BY g.name, g.id"
    )
    width = len(Membership._meta.concrete_fields)
    found = []
    for row in _fetch(sql, user_id):
        member = _loaded(Membership, row[:width])
        member.group = _loaded(Group, row[width:])
        found.append(member)
    return found


def row_of(model, pk: int):
    """The row of `model` (a player, a night) of this id, with its own columns only, or None."""
    rows = _fetch(
        f"SELECT {_columns(model, 't')} FROM {model._meta.db_table} t WHERE t.id = %s", pk
    )
    return _loaded(model, rows[0]) if rows else None


def new_invite_token() -> str:
    return secrets.token_urlsafe(16)


class InviteQuerySet(models.QuerySet["Invite"]):
    def open(self):
        """Invitations that still work: not withdrawn, and made within INVITE_DAYS."""
        since = timezone.now() - timedelta(days=INVITE_DAYS)
        return self.filter(withdrawn__isnull=True, created__gt=since)


class Invite(models.Model):
    """A link that lets whoever opens it join the group with its role."""

    group = models.ForeignKey(Group, models.CASCADE, related_name="invites")
    token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    role = models.CharField(
        max_length=8, choices=[(Role.SCORER, "Scorer"), (Role.VIEWER, "Viewer")]
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    withdrawn = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=[Role.SCORER, Role.VIEWER]), name="invite_role_known"
            )
        ]

    def __str__(self) -> str:
        return f"Invitation to {self.group} as {self.role}"

    def get_absolute_url(self) -> str:
        return reverse("games:join", args=[self.token])

    @property
    def expires(self):
        return self.created + timedelta(days=INVITE_DAYS)


class Change(models.Model):
    """One write to a match, for its change log: who, when and what (the hands as the
    match file writes them, so that an undo never loses what was entered)."""

    class Kind(models.TextChoices):
        STARTED = "started", "started"
        SAVED = "saved", "saved"
        EDITED = "edited", "edited"
        UNDONE = "undone", "undone"

    match = models.ForeignKey(Match, models.CASCADE, related_name="changes")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    number = models.PositiveSmallIntegerField(help_text="the hand; for a start, the hands it had")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Who, as they were called then: the log outlives a renamed or deleted account.
    by = models.CharField(max_length=150, blank=True)
    at = models.DateTimeField(default=timezone.now)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["match", "number"], name="change_match_number")]

    def __str__(self) -> str:
        return f"Hand {self.number} {self.kind} by {self.by or 'somebody'}"

    def get_absolute_url(self) -> str:
        return reverse("games:match_log", args=[self.match_id])

    @classmethod
    def note(cls, match: Match, by, kind: str, number: int, before=None, after=None) -> Change:
        user = by if by is not None and by.is_authenticated else None
        return cls.objects.create(
            match=match,
            kind=kind,
            number=number,
            user=user,
            by=user.get_username() if user else "",
            before=None if before is None else matchfile.dump_hand(before),
            after=None if after is None else matchfile.dump_hand(after),
        )

    @classmethod
    def who(cls, match: Match, kind: str, first: int, last: int) -> list[str]:
        """Who last did `kind` to each of hands `first` to `last`, each name once."""
        rows = cls.objects.filter(match=match, kind=kind, number__range=(first, last))
        latest: dict[int, str] = {}
        for number, by in rows.order_by("at", "pk").values_list("number", "by"):
            latest[number] = by
        return list(dict.fromkeys(name for _, name in sorted(latest.items()) if name))

    @classmethod
    def authors(cls, match: Match, numbers: list[int]) -> dict[int, Change]:
        """The last save or edit of each of these hands: who wrote the hand as it stands."""
        rows = cls.objects.filter(
            match=match, number__in=numbers, kind__in=[cls.Kind.SAVED, cls.Kind.EDITED]
        ).order_by("at", "pk")
        return {row.number: row for row in rows.only("number", "kind", "by", "at")}


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
