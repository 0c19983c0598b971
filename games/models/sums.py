"""Each player's sums kept in step with their results: per night (`NightSum`), the running totals
of money, each night's transfers as searched for its sums (`NightTransfers`), and the one write
path that moves them (`move_sums`, `recount_sums`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.db import IntegrityError, models, transaction
from django.db.models import Count, F, Min, Q, QuerySet, Sum, Window
from django.db.models.expressions import RowRange
from django.db.models.functions import RowNumber
from django.urls import reverse

from games import rules
from games.models.results import (
    COUNTED,
    NET,
    STAKED,
    SUMMED,
    TALLY_FIELDS,
    Result,
    ResultSum,
    stat_sums,
)
from games.models.sql import execute, latest_rows, moment, moved_on, statement

if TYPE_CHECKING:
    from games.models.matches import Match
    from games.models.results import ResultQuerySet


# A match counted for its players' money: finished, and played for money.
COUNTED_FOR_MONEY = Q(match__finished__isnull=False) & STAKED


def run_totals(players: Iterable[int]) -> None:
    """Number these players' finished matches played for money and keep the running total
    of each on its result (`Result.running_place`): written with their sums, wherever a
    match starts or stops counting for them or its money changes."""
    players = sorted(players)
    if not players:
        return
    mine = Result.objects.filter(player__in=players)
    mine.filter(running_place__isnull=False).exclude(COUNTED_FOR_MONEY).update(
        running_place=None, running_cents=None
    )
    marks = ", ".join(["%s"] * len(players))
    execute(statement("RUN_TOTALS").format(players=marks), *players)


def _run_on(match: Match, nets: dict[int, int]) -> None:
    """`match`, just counted for its players' money (it ended), with their nets: the next
    place of each player whose latest such match in its currency it is, from their last
    place (one row a player, through the index), else their running totals anew."""
    key = (moment(match.played_at), match.pk)
    partitions = [(player, match.currency, match.pk) for player in sorted(nets)]
    last = {row[0]: row[1:] for row in latest_rows(statement("LAST_RUNNING"), partitions)}
    anew: list[int] = []
    for player, net in nets.items():
        place, cents, played_at, pk = last.get(player, (0, 0, None, None))
        if place and (moment(played_at), pk) > key:
            anew.append(player)  # a later match of theirs counts already: it moves up
            continue
        found = Result.objects.filter(match=match.pk, player=player)
        found.update(running_place=place + 1, running_cents=cents + net)
    run_totals(anew)


def running_money(
    players: Collection[int], shown: dict[str, set[int]]
) -> dict[str, list[tuple[datetime, int]]]:
    """The money `players` (ids) won over their finished matches played for money, a running
    total a currency, match by match in the order they began: (when the match began, the
    total after it) after each match whose place in that order (from 0) is among the
    currency's `shown`. One player's are read from their results' running totals, only the
    places shown; several players' together (a person's in each of their groups) are added
    up by the database, every match read."""
    places = sorted({i + 1 for kept in shown.values() for i in kept})
    if not players or not places:
        return {}
    rows: Iterable[tuple[Any, ...]]
    if len(players) == 1:  # kept on their results (`run_totals`)
        kept = Result.objects.filter(player__in=players, running_place__in=places)
        rows = kept.values_list(
            "match__currency", "running_place", "match__played_at", "running_cents"
        ).order_by("match__currency", "running_place")
    else:
        by, order = [F("match__currency")], [F("match__played_at"), F("match_id")]
        running = (
            Result.objects.filter(COUNTED_FOR_MONEY, player__in=players)
            .annotate(
                place=Window(RowNumber(), partition_by=by, order_by=order),
                cents=Window(
                    Sum("net_cents"), partition_by=by, order_by=order, frame=RowRange(None, 0)
                ),
            )
            .filter(place__in=places)
        )
        rows = running.values_list(
            "match__currency", "place", "match__played_at", "cents"
        ).order_by("match__currency", "place")
    out: dict[str, list[tuple[datetime, int]]] = {}
    # (Places and totals are kept on every result counted, and only those are read.)
    for currency, place, played_at, cents in cast("Iterable[tuple[str, int, datetime, int]]", rows):
        if place - 1 in shown.get(currency, ()):
            out.setdefault(currency, []).append((played_at, cents))
    return out


class NightSum(models.Model):
    """A player's money over the finished matches of one night played for money in one
    currency, and when the first of them began: what a balance's workings list night by
    night, the latest first, reading a dozen rows a player, never every match. Written with
    `ResultSum`, by the same two functions."""

    night = models.ForeignKey("Night", models.CASCADE, related_name="sums")
    player = models.ForeignKey("Player", models.CASCADE, related_name="night_sums")
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    matches = models.PositiveIntegerField(default=0)
    net_cents = models.BigIntegerField(default=0)
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
        return f"{self.player} on {self.night_id}: {self.net_cents}"

    def get_absolute_url(self) -> str:
        return self.night.get_absolute_url()

    @staticmethod
    def latest(
        keys: list[tuple[int, str]], most: int
    ) -> dict[tuple[int, str], list[tuple[int, int, datetime]]]:
        """The `most` latest nights of each (player, currency) of `keys`: (night, net, when
        the player began there), the latest first."""
        rows = latest_rows(statement("LATEST_NIGHTS"), [(*key, most) for key in keys])
        out: dict[tuple[int, str], list[tuple[int, int, datetime]]] = {}
        for player, currency, night, net, started in rows:
            out.setdefault((player, currency), []).append((night, net, moment(started)))
        return out


# A night's nets as its transfers are searched from: by currency, (name, cents) in the night's
# order (by when each began there, then by name), as `night_nets` reads them.
NightNets = dict[str, list[tuple[str, int]]]


def night_nets(sums: QuerySet[NightSum]) -> dict[int, NightNets]:
    """These sums, night by night, as `settled_nights` reads them."""
    rows = sums.order_by("night_id", "currency", "started", "player__name").values_list(
        "night_id", "currency", "player__name", "net_cents"
    )
    out: dict[int, NightNets] = {}
    for night, currency, name, cents in rows:
        out.setdefault(night, {}).setdefault(currency, []).append((name, cents))
    return out


class NightTransfers(models.Model):
    """A night's transfers as rules.settle_currencies found them for its nets (§11), kept with
    the nets they were found for (`digest`): searched once a change of the night, by the write
    that changes it (`keep_transfers`), not by every page that shows the night, nor by every
    page of a later night that a payment recorded for no night may pay (`Night.paid_cents`).
    A night whose nets no longer match what was kept (a night changed behind the app, or
    before this was kept) is searched where it is read, once, and kept."""

    night = models.OneToOneField("Night", models.CASCADE, related_name="+")
    digest = models.CharField(max_length=64)
    # {currency: [fewest, [[payer, payee, cents], …]]}, each player by their place in the
    # night's order: the search sees only the places and the cents, so a rename or a merge
    # that leaves them as they were searches nothing again.
    found = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"The transfers of night {self.night_id}"

    def get_absolute_url(self) -> str:
        return reverse("games:night_detail", args=[self.night_id])


# What a night's transfers are settled by: the search's bounds, and each currency's nets in
# the night's order.
def _digest(nets: NightNets) -> str:
    searched = [(c, [cents for _, cents in rows]) for c, rows in sorted(nets.items())]
    shape = [rules.EXACT_SEARCH_MOST, rules.SEARCH_BUDGET, searched]
    return hashlib.sha256(json.dumps(shape).encode()).hexdigest()


# Each currency's transfers of a night, and whether they are the fewest.
Settled = dict[str, tuple[list[rules.Payment], bool]]


def settled_nights(nights: dict[int, NightNets]) -> dict[int, Settled]:
    """Each of these nights' transfers (its nets as `night_nets` reads them), names as its
    nets have them: as kept for those nets (`NightTransfers`), else searched now, one budget
    a night (rules.settle_currencies), and kept."""
    if not nights:
        return {}
    kept = NightTransfers.objects.filter(night__in=list(nights)).values_list(
        "night_id", "digest", "found"
    )
    found = {night: (digest, stored) for night, digest, stored in kept}
    out: dict[int, Settled] = {}
    new = []
    for night, nets in nights.items():
        digest = _digest(nets)
        stored = found[night][1] if found.get(night, ("", None))[0] == digest else None
        if stored is None:
            stored = {}
            settled = rules.settle_currencies({c: dict(rows) for c, rows in nets.items()})
            for c, (payments, fewest) in settled.items():
                place = {name: i for i, (name, _) in enumerate(nets[c])}
                paid = [[place[t.payer], place[t.payee], t.cents] for t in payments]
                stored[c] = [fewest, paid]
            new.append(NightTransfers(night_id=night, digest=digest, found=stored))
        out[night] = {
            c: (
                [rules.Payment(nets[c][i][0], nets[c][j][0], cents) for i, j, cents in paid],
                fewest,
            )
            for c, (fewest, paid) in stored.items()
        }
    if new:
        try:
            with transaction.atomic():  # (a page that reads it may be first: kept all the same)
                NightTransfers.objects.bulk_create(
                    new,
                    update_conflicts=True,
                    unique_fields=["night"],
                    update_fields=["digest", "found"],
                )
        except IntegrityError:
            pass  # the night went meanwhile (a read takes no turn): nothing to keep
    return out


def keep_transfers(nights: Collection[int]) -> None:
    """Search the transfers of these nights, whose nets just changed, and keep them: in the
    write that changed them, so that no page that reads them searches."""
    settled_nights(night_nets(NightSum.objects.filter(night__in=list(nights))))


# The two sums written alike (`_sums_of`, `_save`).
_Sum = TypeVar("_Sum", ResultSum, NightSum)


# A match's part of its players' sums, by player: each count, and the net in cents.
_Parts = dict[int, dict[str, int]]


def _parts(match: Match, results: list[dict[str, Any]], finished: bool) -> tuple[_Parts, _Parts]:
    """What `results` of `match` (rows of `SUMMED` with their `player_id`), the match then
    finished or not, add to their players' sums: {player: `COUNTED` and "net"} for
    `ResultSum`, and for `NightSum` {player: "matches" and "net"} where the match counts
    (finished and played for money)."""
    counted = finished and bool(match.stakes())
    sums: _Parts = {}
    nights: _Parts = {}
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


def _first_counted(results: ResultQuerySet) -> datetime | None:
    """When the first of these results' finished matches played for money began."""
    counted = results.finished().filter(STAKED)
    first: datetime | None = counted.aggregate(first=Min("match__played_at"))["first"]
    return first


def summed_results(match_id: int) -> list[dict[str, Any]]:
    """The match's stored results: their `SUMMED` columns and their `player_id`."""
    return list(Result.objects.filter(match=match_id).values("player_id", *SUMMED).order_by())


def _sums_of(model: type[_Sum], column: str, value: object, players: Iterable[int]) -> list[_Sum]:
    """The sums (`ResultSum`, `NightSum`) of these players whose `column` is `value`."""
    return list(model.objects.filter(**{column: value, "player__in": players}).order_by())


def _save(model: type[_Sum], rows: list[_Sum], count: str, columns: list[str]) -> None:
    """Store these sums in one statement, new or not (an insert that updates the stored row of
    the same key): those that now count nothing (`count` 0) go."""
    gone = [r.pk for r in rows if r.pk and not getattr(r, count)]
    if gone:
        model.objects.filter(pk__in=gone).delete()
    kept = [r for r in rows if getattr(r, count)]
    for row in kept:
        row.pk = None  # found again by its key, whose conflict makes the insert an update
    (key,) = (c.fields for c in model._meta.constraints if isinstance(c, models.UniqueConstraint))
    model.objects.bulk_create(kept, update_conflicts=True, unique_fields=key, update_fields=columns)


def move_sums(
    match: Match,
    night_before: int,
    before: list[dict[str, Any]],
    was_finished: bool,
    night: int,
    after: list[dict[str, Any]],
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
        s.net_cents += moved["net"]
        if now.get("staked"):
            s.first = min(s.first or at, at)
        elif was.get("staked") and s.first == at:  # their first such match no longer counts
            mine = Result.objects.filter(player=player, match__preset=match.preset)
            s.first = _first_counted(mine.filter(match__currency=currency))
        if not s.staked:
            s.first = None
        sums.append(s)
    _save(ResultSum, sums, "played", [*COUNTED, "net_cents", "first"])

    parts: dict[tuple[int, int], tuple[dict[str, int], dict[str, int]]] = {
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
        n.net_cents += moved["net"]
        if now:
            n.started = min(n.started, at)
        elif n.matches and n.started == at:  # their first such match that night has gone
            mine = Result.objects.filter(player=player, match__night=on)
            n.started = _first_counted(mine.filter(match__currency=currency)) or at
        nights.append(n)
    _save(NightSum, nights, "matches", ["matches", "net_cents", "started"])
    keep_transfers({n.night_id for n in nights})
    # The match counted for its players' money before or after: their running totals, on
    # its end the next place of each player whose latest such match it is (a match played
    # to its end, a file imported oldest first), else anew (its results were written anew,
    # or went, or its place among theirs moved).
    if new_nights and not old_nights:
        _run_on(match, {p: part["net"] for p, part in new_nights.items()})
    else:
        run_totals({player for _, player in parts})


def add_to_sums(match: Match, parts: dict[int, dict[str, int]]) -> None:
    """Add to its players' sums (`ResultSum`) what a hand that does not end `match` added to
    their results (`parts`: {player: {each of `TALLY_FIELDS`: how much}}), in one statement
    (`sql.SUMS_MOVED_ON`): what `move_sums` would move, a match in progress counting only
    its tallies (its money, its win and its night's sums wait for its end). Where a player
    has no sum of the match's kind (their results were changed behind the app), theirs are
    summed anew."""
    counts, params = moved_on("player_id", parts, (), TALLY_FIELDS)
    if not counts:
        return  # a hand everybody passed: no count moves
    players = sorted(parts)
    sql = statement("SUMS_MOVED_ON").format(counts=counts, players=", ".join(["%s"] * len(players)))
    if execute(sql, *params, match.preset, match.currency, *players) != len(players):
        recount_sums(players)


def recount_sums(players: Iterable[int]) -> None:
    """Sum these players' results anew (`ResultSum`, `NightSum`), from every stored result:
    where results change hands wholesale (a merge), or their match's rules, stakes or night
    may have changed (the admin), and their running totals (`run_totals`). The sums
    `move_sums()` keeps are these."""
    players = list(players)
    counted = Q(match__finished__isnull=False) & STAKED
    rows = (
        Result.objects.filter(player__in=players)
        .values("player", "match__preset", "match__currency")
        .annotate(
            **stat_sums(),
            staked=Count("pk", filter=counted),
            net=Sum("net_cents", filter=counted, default=0),
            first=Min("match__played_at", filter=counted),
        )
        .order_by()
    )
    sums = []
    for row in rows:
        player, preset, currency, net = (
            row.pop(k) for k in ("player", "match__preset", "match__currency", "net")
        )
        sums.append(
            ResultSum(player_id=player, preset=preset, currency=currency, net_cents=net, **row)
        )
    by_night = (
        Result.objects.filter(player__in=players)
        .finished()
        .filter(STAKED)
        .values_list("match__night", "player", "match__currency")
        .annotate(matches=Count("pk"), net=NET, started=Min("match__played_at"))
        .order_by()
    )
    nights = [
        NightSum(
            night_id=night,
            player_id=player,
            currency=currency,
            matches=matches,
            net_cents=net,
            started=started,
        )
        for night, player, currency, matches, net, started in by_night
    ]
    ResultSum.objects.filter(player__in=players).delete()
    NightSum.objects.filter(player__in=players).delete()
    ResultSum.objects.bulk_create(sums)
    NightSum.objects.bulk_create(nights)
    keep_transfers({n.night_id for n in nights})
    run_totals(players)
