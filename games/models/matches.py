"""A stored match (`Match`) and its seats: a thin adapter over rules.py."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property

from games import matchfile, rules, words
from games.models.common import fetch, moment
from games.models.groups import Group, groups_turn
from games.models.hands import (
    VERDICT_COLUMNS,
    Change,
    Hand,
    hand_verdict,
    hands_from_rows,
    verdict,
    write_hand_verdicts,
)
from games.models.nights import Night
from games.models.results import Result
from games.models.sums import move_sums, recount_sums, summed_results

# Far more than any card night; a bound so that no file or tap can store an endless match.
MAX_HANDS = 1000


# Every page of a match reads its players' names and its hands, and Django's building of those
# queries cost several times their running (bench/pages_bench.py): they are written out here.
# The hands come in one statement (a page never sees half of a write), each with its verdict
# (`VERDICT_COLUMNS`), numbered from the first %s to the second. They name their players by
# seat, not by name:
# the names are read in another statement, and a rename or a merge committed between the two
# changes a name but never a seat.
HANDS_SQL = """
    SELECT hand.number, hand.upcard, hand.trump, maker.position, hand.bid, hand.passed,
           hand.moon, seat.position, play.dropped, play.tricks, hand.dealer, hand.scores, hand.sets
    FROM games_hand hand
    LEFT JOIN games_seat maker
        ON maker.match_id = hand.match_id AND maker.player_id = hand.maker_id
    LEFT JOIN games_play play ON play.hand_id = hand.id
    LEFT JOIN games_seat seat ON seat.match_id = hand.match_id AND seat.player_id = play.player_id
    WHERE hand.match_id = %s AND hand.number BETWEEN %s AND %s
    ORDER BY hand.number, play.id
"""
VERSION_SQL = "SELECT version FROM games_match WHERE id = %s"


# What a write to a match deleted meanwhile says (Match.DoesNotExist's message).
GONE = "This match was deleted on another phone."

LAST_NUMBER = 32_767  # as far as hands go: the largest number a hand's column holds


# Each match's card: the match and its stored results, seat by seat (`Match.card_rows`).
CARDS_SQL = """
    SELECT m.id, m.preset, m.options, m.played_at, m.finished, m.hands_played, m.next_dealer,
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
    label: str  # the match's title (`Match.label`)
    played_at: datetime
    finished: bool
    hands_played: int
    next_dealer: int
    results: list[tuple[int, str, int, bool]]
    # Where the match's scores are shown counted up (`count_up`), its starting score: a score
    # shown is then this less the score kept (rules.shown_score).
    counted_up_from: int | None = None


def _counted_up_from(preset: str, options) -> int | None:
    """A match's starting score where its scores are shown counted up, else None: read from
    its preset and house rules without building the ruleset (a list has many cards)."""
    if preset not in rules.PRESETS:
        return None
    options = _json(options) or {}
    known = rules.PRESETS[preset].ruleset
    if not options.get("count_up", known.count_up):
        return None
    return options.get("starting_score", known.starting_score)


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


def _json(value):
    """A JSON column as a query written out reads it: text (as SQLite, and psycopg as Django
    sets it up, hand it back), or the value itself."""
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class Earlier:
    """The save a hand's save repeats (`Match.add_hand`): hand `number` as `change` stored it
    (who, with its `name`; None where the log has nobody), and what became of it since:
    "stored" (it stands as saved), "changed" (edited since) or "undone"."""

    number: int
    change: Change | None
    now: str = "stored"
    same_key: bool = False  # sent again with the very key it was saved with: the same phone


class Saved(NamedTuple):
    """What `Match.add_hand` did: the match as it is now, its replay, and the earlier save
    of the same hand it found instead of storing it again (None where it stored it)."""

    match: Match
    replayed: tuple
    earlier: Earlier | None = None


class Stale(Exception):
    """A write from a page drawn before the match's hands last changed (another phone's save)."""

    def __init__(self, match: Match, hands: int):
        super().__init__(f"match {match.pk} is at version {match.version}")
        self.match = match
        self.hands = hands  # how many hands the match has now


PRESET_CHOICES = [(p.name, p.label) for p in rules.PRESETS.values()]


def new_share_token() -> str:
    return secrets.token_urlsafe(16)


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
            groups_turn(self.group_id)
            match = Match.objects.get(pk=self.pk)
            old = match.night_id
            if night is None:
                night = Night.objects.create(group_id=self.group_id)
            Match.objects.filter(pk=self.pk).update(night=night)
            results = summed_results(self.pk)
            finished = match.finished is not None
            move_sums(match, old, results, finished, night.pk, results)
            Night.objects.filter(pk=old, matches__isnull=True).delete()
        self.night = night
        return night

    @transaction.atomic
    def remove(self) -> None:
        """Delete the match whole, and its night if no other match is left on it; its results
        leave their players' sums. Match.DoesNotExist (`GONE`) if it was deleted already, or
        its group with it."""
        try:
            groups_turn(self.group_id)
        except Group.DoesNotExist:
            raise Match.DoesNotExist(GONE) from None
        stored = Match.objects.filter(pk=self.pk).first()
        if stored is None:
            raise Match.DoesNotExist(GONE)
        results = summed_results(self.pk)
        self.delete()
        night = stored.night_id
        move_sums(stored, night, results, stored.finished is not None, night, [])
        Night.objects.filter(pk=night, matches__isnull=True).delete()

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
    def label_of(preset: str, options=None) -> str:
        """A preset's name in words, as the match's house rules have it (`options`: its
        starting score), or its own name for one the app no longer knows."""
        if preset not in rules.PRESETS:
            return preset
        known = rules.PRESETS[preset]
        if isinstance(options, str):  # a JSON column as plain SQL reads it on SQLite
            options = json.loads(options)
        start = (options or {}).get("starting_score")
        return words.match_title(known.label, known.ruleset.starting_score, start)

    @staticmethod
    def card_rows(ids: list[int]) -> list[CardRow]:
        """What a list shows of each of these matches, in their order, from the stored
        results, in one statement written out (the ORM took five times what the database
        spends answering it, for a page of cards and their results)."""
        if not ids:
            return []
        rows = fetch(CARDS_SQL.format(ids=", ".join(["%s"] * len(ids))), *ids)
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
        return fetch(VERSION_SQL, self.pk) != [(self.version,)]

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
        return hands_from_rows(fetch(HANDS_SQL, self.pk, 1, LAST_NUMBER), self.names)

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
        rows = fetch(HANDS_SQL, self.pk, max(first, 1), last)
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
        It takes the group's turn first (`groups_turn`), as every other write to the group
        does before it locks a match, so that no two writes wait for each other: a save adds
        to its players' sums and moves the group's version on. (The lock order: group, then
        match, then players; see `groups_turn`.)

        Match.DoesNotExist, in words (`GONE`), where the match, or its whole group, was
        deleted on another phone before its turn came.
        """
        try:
            groups_turn(self.group_id)
            match = Match.objects.with_seats().select_for_update().get(pk=self.pk)
        except (Group.DoesNotExist, Match.DoesNotExist):
            raise Match.DoesNotExist(GONE) from None
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
    def add_hand(
        self, number: int, hand: rules.Hand, version: int | None, by=None, key: str | None = None
    ) -> Saved:
        """Save hand `number` from a page drawn at `version`, sent with the phone's `key`
        for it, if any. The same hand arriving twice (a double tap, a resent request, two
        phones entering it) is stored once, and so is every hand sent under a key already
        stored, whatever its version (`Saved.earlier` says which save it repeats); anything
        else from an out-of-date page raises `Stale`.
        """
        match, stored = self._locked()
        earlier = match.saved_under(key) if key else None  # before the version: a resend
        if earlier is not None:
            return Saved(match, match.replay(stored), earlier)
        hand = _seated(hand, self.names, match.names)
        if 1 <= number <= len(stored) and stored[number - 1] == hand:
            change = Change.authors(match, [number]).get(number)
            return Saved(match, match.replay(stored), Earlier(number, change))
        if version != match.version or number != len(stored) + 1:
            raise Stale(match, len(stored))
        replayed = match._store(stored, [*stored, hand], {number: key} if key else None)
        Change.note(match, by, Change.Kind.SAVED, number, after=hand, key=key)
        return Saved(match, replayed)

    def saved_under(self, key: str) -> Earlier | None:
        """The save of this match's hand that a phone sent with `key`, and what became of
        it, or None if no hand was stored under it. The log is read before the hand: a save
        writes both at once, and an undo only ever takes the hand away."""
        saved = (
            Change.objects.filter(match=self, kind=Change.Kind.SAVED, key=key)
            .order_by("-pk")
            .first()
        )
        if saved is None:
            return None
        Change.named(self, [saved])
        now = "stored"
        if not Hand.objects.filter(match=self, key=key).exists():
            now = "undone"
        elif Change.objects.filter(
            match=self, number=saved.number, kind=Change.Kind.EDITED, pk__gt=saved.pk
        ).exists():
            now = "changed"
        return Earlier(saved.number, saved, now, same_key=True)

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

    def _store(self, stored: list[rules.Hand], hands: list[rules.Hand], keys=None):
        """A write from a phone (a hand saved, changed or undone): write the hand rows that
        differ between `stored` and `hands` (a new hand with its phone's key, in `keys`), and
        the engine's verdict on the hands from the first that differs on, with the row
        locked. Returns the replay of `hands`."""
        start, state, results = self._replay_to_store(hands)
        if stored == hands:
            return state, results
        changed = self._write_hands(stored, hands, state, results, keys)
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

    def _write_hands(self, stored, hands, state, results, keys=None) -> list[int]:
        """Write the hands of `hands` that differ from `stored` (each with its verdict, and
        its key: as it had, or from `keys`), drop those past the end, and move the version
        on. Returns the numbers written."""
        players = {seat.player.name: seat.player for seat in self.seats.all()}
        changed = [n for n, hand in enumerate(hands, 1) if n > len(stored) or stored[n - 1] != hand]
        rewritten = Hand.objects.filter(match=self, number__in=changed, key__isnull=False)
        kept = dict(rewritten.values_list("number", "key"))  # an edited hand keeps its key
        Hand.objects.filter(match=self).filter(
            Q(number__in=changed) | Q(number__gt=len(hands))
        ).delete()
        rows = [(n, hands[n - 1], hand_verdict(state.players, results[n - 1])) for n in changed]
        Hand.store_all(self, rows, players, {**kept, **(keys or {})})
        self.version += 1
        return changed

    def _write_verdict(self, start, state, results, rows, recount: bool = False) -> None:
        """Write the engine's verdict: on each hand of `rows` (the others have theirs), on
        the match, and each seat's `Result`; and move the players' sums from the results as
        they were to the new ones (`move_sums`), or with `recount` (the admin may have
        changed the match's rules, stakes, seats or night) sum their results anew."""
        write_hand_verdicts(list(rows), state.players, results)
        before = summed_results(self.pk)
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
            move_sums(self, self.night_id, before, was_finished, self.night_id, after)

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
        from games.models.players import seat_players

        group = Group.of(group)
        rules.new_match(ruleset, names, first_dealer)
        rules.check_people(names)
        _check_fits(names, stakes)
        groups_turn(group.pk)
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
        groups_turn(group.pk)
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
