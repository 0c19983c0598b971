"""A stored match (`Match`) and its seats: a thin adapter over the rules (games.rules)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Self

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property

from games import matchfile, rules, words
from games.models.groups import Group
from games.models.results import Result
from games.models.sql import fetch, moment, statement

LAST_NUMBER = 32_767  # as far as hands go: the largest number a hand's column holds

HISTORY_SHOWN = 5  # the latest hands a board lists under the scores; the rest on demand

# A match folded over its hands: the state after them, and what each hand did (of all of them,
# or of the latest, as `Match.replay_latest` has them).
Replay = tuple[rules.MatchState, list[rules.HandResult]]

# What a hand's row keeps of the engine's verdict on it (see `hand_verdict`).
VERDICT_COLUMNS = ("dealer", "scores", "sets")


def hands_from_rows(rows: Iterable[Sequence[Any]], names: Sequence[str]) -> list[rules.Hand]:
    """The engine's hands from rows of the statement `HANDS` (models/sql.py), ordered by
    number; `names` in seat order (the rows name the maker and the players by seat)."""
    hands: dict[int, dict[str, Any]] = {}
    for number, upcard, trump, maker, bid, passed, moon, who, dropped, tricks, *_ in rows:
        hand = hands.setdefault(
            number,
            {
                "upcard": upcard,
                "trump": trump or None,
                "maker": None if maker is None else names[maker],
                "bid": bid,
                "passed": bool(passed),
                "moon": bool(moon),
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


# Far more than any card night; a bound so that no file or tap can store an endless match.
MAX_HANDS = 1000

# What a write to a match deleted meanwhile says (Match.DoesNotExist's message).
GONE = "This match was deleted on another phone."


def _whole(cents: int) -> str:
    """An amount in words: 1,000,000 or 5,025.50."""
    whole, part = divmod(cents, 100)
    return f"{whole:,}" + (f".{part:02d}" if part else "")


def check_money(ruleset: rules.Ruleset, stakes: rules.Stakes) -> None:
    """A match whose loser could owe more than settings.MAX_LOSS_CENTS (the arithmetic is
    there), at the worst its rules and stakes allow, refused in words: a RuleError."""
    most, points, short = rules.most_owed(ruleset, stakes, MAX_HANDS)
    limit = settings.MAX_LOSS_CENTS
    if most > limit:
        raise rules.RuleError(
            "bad_file",
            f"At these stakes one loser could owe up to {_whole(most)} in a match (a match "
            f"of {MAX_HANDS:,} hands under these rules can reach {points:,} points and "
            f"{short:,} hands fallen short); the most one loser may owe in a match is "
            f"{_whole(limit)}. Lower the stakes.",
            _costliest(stakes, points, short),
        )


def _costliest(stakes: rules.Stakes, points: int, short: int) -> str:
    """The stake whose part of the worst a loser could owe is the largest: where a form
    shows the refusal."""
    parts = {
        "per_game": stakes.per_game,
        "per_point": stakes.per_point * points,
        "per_set": stakes.per_set * short,
    }
    return max(parts, key=lambda name: parts[name])


def check_room(matches: QuerySet[Match]) -> None:
    """A group that keeps settings.MAX_GROUP_MATCHES matches (`matches`, its own) already
    takes no more: a RuleError in words."""
    limit = settings.MAX_GROUP_MATCHES
    if matches.count() >= limit:
        raise rules.RuleError(
            "bad_file",
            f"A group keeps at most {limit:,} matches, and this one has that many: "
            "start another group for the next ones.",
        )


@dataclass
class CardRow:
    """What a list shows of a match (`Match.card_rows`): its results are (seat, name, score,
    won), in seat order."""

    pk: int
    preset: str
    label: str  # the match's title (`Match.label`)
    played_at: datetime
    finished: bool
    hands_played: int
    next_dealer: int
    results: list[tuple[int, str, int, bool]]
    # Where the match's scores are shown counted up (`count_up`), its starting score: a score
    # shown is then this less the score kept (rules.shown_score).
    counted_up_from: int | None = None


def _counted_up_from(preset: str, options: object) -> int | None:
    """A match's starting score where its scores are shown counted up, else None: read from
    its preset and house rules without building the ruleset (a list has many cards)."""
    if preset not in rules.PRESETS:
        return None
    options = _json(options) or {}
    known = rules.PRESETS[preset].ruleset
    if not options.get("count_up", known.count_up):
        return None
    start: int = options.get("starting_score", known.starting_score)
    return start


def _json(value: object) -> Any:  # whatever the column holds: JSON
    """A JSON column as a query written out reads it: text (as SQLite, and psycopg as Django
    sets it up, hand it back), or the value itself."""
    return json.loads(value) if isinstance(value, str) else value


# Stored hands by number, each with its verdict as stored (`VERDICT_COLUMNS`, as read).
_Stored = dict[int, tuple[rules.Hand, tuple[Any, ...]]]

PRESET_CHOICES = [(p.name, p.label) for p in rules.PRESETS.values()]


def new_share_token() -> str:
    return secrets.token_urlsafe(16)


class MatchQuerySet(models.QuerySet["Match"]):
    def one(self, pk: int) -> Match | None:
        """The match of this id, or None: where every board, check and write of a match
        starts."""
        return self.filter(pk=pk).first()

    def with_seats(self) -> Self:
        """Each match's seats with their players, in seat order, in one query: its `names`
        without a query of their own. (The hands come in one more, `game_hands`.)"""
        return self.prefetch_related(
            models.Prefetch("seats", Seat.objects.select_related("player").order_by("position")),
        )

    def same_as(self, m: matchfile.Match) -> Match | None:
        """The match of these that is `m` (Match.same_as of the match file), if any."""
        if m.played_at is None:
            return None
        alike: MatchQuerySet = self.filter(played_at=m.played_at).with_seats()
        for match in alike:
            if match.to_file().same_as(m):
                return match
        return None

    def with_results(self) -> Self:
        """Each seat's stored result with its player, in seat order: a match's outcome on a
        list or a record without replaying it."""
        return self.prefetch_related(
            models.Prefetch("results", Result.objects.select_related("player").order_by("seat")),
        )

    def in_progress(self) -> Self:
        return self.filter(finished__isnull=True)

    def new_share_links(self) -> int:
        """A new read-only link for each of these matches (`Match.new_share_link`): whoever
        kept an old one, a member taken out of the group say, sees nothing more. How many."""
        renewed = 0
        for pk in self.values_list("pk", flat=True):
            renewed += Match.objects.filter(pk=pk).update(share_token=new_share_token())
        return renewed

    @staticmethod
    def latest_ids(group: Group, finished: bool, most: int) -> list[int]:
        """The group's `most` latest matches in progress, or finished: their ids."""
        matches = Match.objects.filter(group=group, finished__isnull=not finished)
        return list(matches.order_by("-played_at", "-id").values_list("pk", flat=True)[:most])


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
    # engine's verdict, written with the hands in `writes._write_verdict` and nowhere else.
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
        indexes = [
            models.Index(fields=["group", "-played_at"], name="match_group_played"),
            # The few matches going, found without reading the group's finished ones (#44 §3).
            models.Index(
                fields=["group", "-played_at"],
                condition=Q(finished__isnull=True),
                name="match_going",
            ),
        ]
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
        return Match.label_of(self.preset, self.options)

    @staticmethod
    def label_of(preset: str, options: str | dict[str, Any] | None = None) -> str:
        """A preset's name in words, as the match's house rules have it (`options`: its
        starting score), or its own name for one the app no longer knows."""
        if preset not in rules.PRESETS:
            return preset
        known = rules.PRESETS[preset]
        # A JSON column as plain SQL reads it on SQLite: its text.
        # (A match the admin is refusing may hold any JSON meanwhile: no options then.)
        try:
            read = json.loads(options) if isinstance(options, str) else options
        except ValueError:
            read = None
        start = read.get("starting_score") if isinstance(read, dict) else None
        return words.match_title(known.label, known.ruleset.starting_score, start)

    @staticmethod
    def card_rows(ids: list[int]) -> list[CardRow]:
        """What a list shows of each of these matches, in their order, from the stored
        results, in one statement written out (the ORM took five times what the database
        spends answering it, for a page of cards and their results)."""
        if not ids:
            return []
        rows = fetch(statement("CARDS").format(ids=", ".join(["%s"] * len(ids))), *ids)
        cards: dict[int, CardRow] = {}
        for pk, preset, options, played_at, finished, hands, dealer, seat, name, score, won in rows:
            card = cards.get(pk)
            if card is None:
                at = moment(played_at)
                label = Match.label_of(preset, options)
                card = cards[pk] = CardRow(
                    pk, preset, label, at, finished is not None, hands, dealer, []
                )
                card.counted_up_from = _counted_up_from(preset, options)
            if seat is not None:
                card.results.append((seat, name, score, bool(won)))
        return [cards[pk] for pk in ids if pk in cards]

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The players' names in seat order: from `with_seats()`'s seats where they were
        fetched (a list of matches), else in one small query (a single match's page)."""
        if "seats" in getattr(self, "_prefetched_objects_cache", {}):
            return tuple(seat.player.name for seat in self.seats.all())
        seats = Seat.objects.filter(match=self.pk).order_by("position")
        names = tuple(seats.values_list("player__name", flat=True))
        if not names:  # deleted, seats and all, on another phone since the match was read
            raise Match.DoesNotExist(GONE)
        return names

    def moved_on(self) -> bool:
        """Whether the match was written (or deleted) since this row of it was read: another
        phone's save landing between a page's reading of the match and of its hands."""
        return not Match.objects.filter(pk=self.pk, version=self.version).exists()

    def winner_names(self) -> list[str]:
        return [r.player.name for r in self.results.all() if r.won]

    def stored_state(self) -> rules.MatchState:
        """The match as its stored results hold it, without replaying the hands: `writes._store`
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
        return rules.ruleset_of(self.preset, self.options)

    def stakes(self) -> rules.Stakes:
        return rules.Stakes(
            self.per_game_cents, self.per_point_cents, self.per_set_cents, self.currency
        )

    def start(self) -> rules.MatchState:
        return rules.new_match(self.ruleset(), self.names, self.names[self.first_dealer])

    def game_hands(self) -> list[rules.Hand]:
        """The hands for the engine, read in one statement: a page never sees half of a write
        (under READ COMMITTED every statement has its own snapshot)."""
        return hands_from_rows(fetch(statement("HANDS"), self.pk, 1, LAST_NUMBER), self.names)

    def replay(
        self, hands: list[rules.Hand] | None = None
    ) -> tuple[rules.MatchState, list[rules.HandResult]]:
        """The match folded over its hands: (state, results)."""
        return rules.replay(self.start(), self.game_hands() if hands is None else hands)

    # A page reads the match from the engine's verdict stored with its hands (`writes._store`),
    # never by folding the whole match: the state before a hand (`state_before`), the latest
    # hands of the board (`replay_latest`) and the score race (`score_race`) all start from
    # `_stored_hands` and `_verdict_after`, and fold the hands only where those rows are not
    # as `writes._store` writes them (rows written by hand, seats changed in the admin).

    def _stored_hands(self, first: int, last: int = LAST_NUMBER) -> _Stored:
        """Hands `first` to `last` as stored, in one statement: {number: (hand, its verdict
        as `VERDICT_COLUMNS`)}, in the order of their numbers."""
        rows = fetch(statement("HANDS"), self.pk, max(first, 1), last)
        verdicts = {row[0]: row[-len(VERDICT_COLUMNS) :] for row in rows}
        hands = hands_from_rows(rows, self.names)
        return dict(zip(verdicts, zip(hands, verdicts.values(), strict=True), strict=True))

    def _verdict_after(self, stored: _Stored, first: int) -> rules.MatchState | None:
        """The match after hand `first` (the start, for 0) as the verdict stored with it says,
        `stored` being `_stored_hands` that hold it and the hand after it; None where the rows
        are not as `writes._store` writes them."""
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
            None in (dealer, scores, sets)  # rows written outside `writes._store`
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
        if before is None:  # no hand number − 1, or rows not as `writes._store` writes them
            hands = self.game_hands()
            if number > len(hands) + 1:
                return None
            state, _ = self.replay(hands[: number - 1])
            return state, hands[number - 1] if number <= len(hands) else None
        return rules.play(before, stored[number - 1][0])[0], hand

    def replay_latest(self, count: int) -> tuple[rules.MatchState, list[rules.HandResult]]:
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

    def replay_stored(self, count: int) -> Replay | None:
        """`replay_latest`, strictly: the match as it stands and the results of (at least) its
        last `count` hands, played again from the verdict stored with the hand before them, in
        one statement; None where the hands stored are not 1 to `hands_played`, each with its
        verdict as `writes._store` writes them (then only the whole fold will do)."""
        if self.hands_played == 0:
            return self.start(), []
        first = max(self.hands_played - max(count, 1), 0)  # the hand whose verdict they start from
        stored = self._stored_hands(first)
        if list(stored) != list(range(max(first, 1), self.hands_played + 1)):
            return None  # a hand more, or fewer, than the match says it has
        before = self._verdict_after(stored, first)
        if before is None:
            return None
        return rules.replay(before, [hand for n, (hand, _) in stored.items() if n > first])

    def score_race(self) -> tuple[rules.MatchState, list[tuple[int, list[int]]]]:
        """The match as it stands, and every seat's score after each hand, in seat order: as
        `writes._store` stored them with the hands, in one statement (only the last hand is played
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

    def clean(self) -> None:
        """The admin's edit: stakes or rules, new or changed, a loser could owe too much under
        (a match kept from before the limits keeps its own), a new match in a group that keeps
        as many as it may, or hands the rules (as edited) refuse."""
        try:
            stored = type(self).objects.filter(pk=self.pk).first() if self.pk else None
            kept = stored and (stored.preset, stored.options, stored.stakes())
            if kept != (self.preset, self.options, self.stakes()):
                check_money(self.ruleset(), self.stakes())
            if self.pk is None:
                if self.group_id is not None:
                    check_room(type(self).objects.filter(group_id=self.group_id))
                return
            self.replay()
        except rules.RuleError as e:
            if e.field == "options":
                raise ValidationError({"options": e.message}) from e
            raise ValidationError(e.located()) from e


class Seat(models.Model):
    match = models.ForeignKey(Match, models.CASCADE, related_name="seats")
    player = models.ForeignKey("Player", models.RESTRICT, related_name="seats")
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
