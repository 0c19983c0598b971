"""The hands of a match (`Hand`, `Play`), the engine's verdict on them, and the match's change log
(`Change`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, TypedDict, cast

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games import matchfile, rules, words
from games.models.groups import Membership, author
from games.models.matches import VERDICT_COLUMNS, Match
from games.models.sql import fetch, moment, statement

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def verdict(
    start: rules.MatchState,
    state: rules.MatchState,
    results: list[rules.HandResult],
    stakes: rules.Stakes,
) -> list[dict[str, int]]:
    """Each seat's part in the engine's verdict on a match, as `Result` fields, in seat order."""
    _, net = rules.settle(state, stakes)
    tallies = rules.tallies(start, results)
    moons = rules.moons(start, results)
    return [
        {
            "seat": seat,
            "score": state.scores[name],
            "won": name in state.winners,
            "net_cents": net.get(name, 0),
            "short": state.sets[name],
            **asdict(tallies[name]),
            "moons_declared": moons[name].declared,
            "moons_made": moons[name].made,
        }
        for seat, name in enumerate(state.players)
    ]


class HandVerdict(TypedDict):
    """A hand's part in the engine's verdict (`hand_verdict`)."""

    dealer: int
    scores: list[int]
    sets: list[int]


def hand_verdict(names: Sequence[str], result: rules.HandResult) -> HandVerdict:
    """A hand's part in the engine's verdict, as `Hand` fields: who dealt it and, after it,
    every seat's score and the hands each has fallen short, in seat order."""
    return {
        "dealer": names.index(result.dealer),
        "scores": [result.scores[name] for name in names],
        "sets": [result.sets[name] for name in names],
    }


def write_hand_verdicts(
    rows: Sequence[Hand], names: Sequence[str], results: list[rules.HandResult]
) -> None:
    """Write the engine's verdict on each of these stored hands (`Hand` rows)."""
    for row in rows:
        for column, value in hand_verdict(names, results[row.number - 1]).items():
            setattr(row, column, value)
    if rows:
        type(rows[0]).objects.bulk_update(rows, VERDICT_COLUMNS)


# The longest key a phone may give a hand it sends (#35 §3): made on the phone, kept on the hand.
KEY_LENGTH = 64

# rules.SUITS as choices, named as the app says them ("♣ Clubs").
SUIT_CHOICES = [(s, words.suit_label(s)) for s in rules.SUITS]


class Hand(models.Model):
    match = models.ForeignKey("Match", models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()
    upcard = models.CharField(max_length=8, choices=SUIT_CHOICES)
    # Blank where the rules give the trump (a turned automatic suit); "none" for no trump.
    trump = models.CharField(
        max_length=8, blank=True, choices=[*SUIT_CHOICES, (rules.NO_TRUMP, "No trump")]
    )
    maker = models.ForeignKey("Player", models.RESTRICT, null=True, blank=True, related_name="+")
    bid = models.PositiveSmallIntegerField(null=True, blank=True)
    passed = models.BooleanField(default=False, help_text="everybody passed and it was redealt")
    moon = models.BooleanField(default=False, help_text="the maker declared the moon (§4)")
    created = models.DateTimeField(auto_now_add=True)
    # The engine's verdict on the hand (`hand_verdict`), written with it by `writes._store`:
    # a page reads the match before a hand from the one before it, not by folding the match.
    dealer = models.PositiveSmallIntegerField(null=True, blank=True, help_text="seat, from 0")
    scores = models.JSONField(null=True, blank=True, help_text="every seat's score after it")
    sets = models.JSONField(
        null=True, blank=True, help_text="the hands every seat has fallen short, after it"
    )
    # The key the phone sent the hand with: a resend of it (its answer lost on the way, or an
    # outbox sending again) is answered as the first was and never stored twice. It stays
    # with the hand through an edit; an undo drops it with the row (the change log keeps it).
    # NULL, not "", where a hand came without one: unique only among the hands that have one.
    key = models.CharField(max_length=KEY_LENGTH, null=True, blank=True)  # noqa: DJ001

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="hand_number_unique"),
            models.UniqueConstraint(
                fields=["match", "key"], condition=Q(key__isnull=False), name="hand_key_unique"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="hand_number_from_1"),
            models.CheckConstraint(
                condition=Q(bid__isnull=True) | Q(bid__gte=1, bid__lte=rules.TRICKS),
                name="hand_bid_range",
            ),
            models.CheckConstraint(
                condition=Q(passed=False) | Q(maker__isnull=True, bid__isnull=True, trump=""),
                name="hand_passed_is_bare",
            ),
            models.CheckConstraint(
                condition=Q(passed=False) | Q(moon=False), name="hand_passed_no_moon"
            ),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("games:hand_edit", args=[self.match_id, self.number])

    def to_rules(self, plays: Sequence[Play] | None = None) -> rules.Hand:
        """The hand for the engine; `plays`, when given, replace the stored players' parts."""
        plays = list(self.plays.all()) if plays is None else plays
        return rules.Hand(
            upcard=self.upcard,
            trump=self.trump or None,
            maker=self.maker.name if self.maker else None,
            bid=self.bid,
            dropped=tuple(p.player.name for p in plays if p.dropped),
            # (A player who played has a count: a blank one, from the admin, the engine refuses.)
            tricks={p.player.name: cast(int, p.tricks) for p in plays if not p.dropped},
            passed=self.passed,
            moon=self.moon,
        )

    @staticmethod
    def store_all(
        match: Match,
        hands: list[tuple[int, rules.Hand, HandVerdict]],
        players: dict[str, int],
        keys: Mapping[int, str | None] | None = None,
    ) -> None:
        """Write these (number, hand, verdict) rows, the verdict as `hand_verdict()` gives it,
        the players named by their ids (`players`), and `keys` ({number: key}) where a phone
        gave one: the hands in one insert (which
        gives back their ids: SQLite 3.35 or later), then their plays in another, each in as
        few batches as the database takes (SQLite: 999 values a statement)."""
        if not hands:
            return
        rows = Hand.objects.bulk_create(
            Hand(
                match=match,
                number=number,
                upcard=hand.upcard,
                trump=hand.trump or "",
                maker_id=players[hand.maker] if hand.maker else None,
                bid=hand.bid,
                passed=hand.passed,
                moon=hand.moon,
                key=(keys or {}).get(number),
                **verdict,
            )
            for number, hand, verdict in hands
        )
        Play.objects.bulk_create(
            play
            for row, (_, hand, _) in zip(rows, hands, strict=True)
            for play in [
                *(Play(hand=row, player_id=players[n], dropped=True) for n in hand.dropped),
                *(Play(hand=row, player_id=players[n], tricks=t) for n, t in hand.tricks.items()),
            ]
        )


class Play(models.Model):
    """One player's part in a hand: dropped out, or played and took some tricks."""

    hand = models.ForeignKey(Hand, models.CASCADE, related_name="plays")
    player = models.ForeignKey("Player", models.RESTRICT, related_name="plays")
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


class Change(models.Model):
    """One write to a match, for its change log: who, when and what (the hands as the
    match file writes them, so that an undo never loses what was entered)."""

    class Kind(models.TextChoices):
        STARTED = "started", "started"
        SAVED = "saved", "saved"
        EDITED = "edited", "edited"
        UNDONE = "undone", "undone"

    match = models.ForeignKey("Match", models.CASCADE, related_name="changes")
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
    # A save's key (`Hand.key`), kept here too: a resend after an undo is still known.
    key = models.CharField(max_length=KEY_LENGTH, blank=True, default="")
    _name: str  # who, as `named` finds them

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["match", "number"], name="change_match_number")]

    def __str__(self) -> str:
        return f"Hand {self.number} {self.kind} by {self.by or 'somebody'}"

    def get_absolute_url(self) -> str:
        return reverse("games:match_log", args=[self.match_id])

    @classmethod
    def note(
        cls,
        match: Match,
        by: User | AnonymousUser | None,
        kind: str,
        number: int,
        before: rules.Hand | None = None,
        after: rules.Hand | None = None,
        key: str | None = None,
    ) -> Change:
        user, name = author(by)
        return cls.objects.create(
            match=match,
            kind=kind,
            number=number,
            user=user,
            by=name,
            before=None if before is None else matchfile.dump_hand(before),
            after=None if after is None else matchfile.dump_hand(after),
            key=key or "",
        )

    @property
    def name(self) -> str:
        """Who, as the table knows them: the player the member said they are (`/me/`), else
        the account's name as it was then (set by `named`; the account's name until then)."""
        return getattr(self, "_name", self.by)

    @staticmethod
    def named(match: Match, changes: Iterable[Change]) -> list[Change]:
        """These changes of `match`, each with its `name`: the player its account is at the
        match's group's table, where the member said so. One query however many."""
        changes = list(changes)
        users = {c.user_id for c in changes if c.user_id is not None}
        players: dict[int | None, str] = dict(
            Membership.objects.filter(
                group_id=match.group_id, user_id__in=users, player__isnull=False
            ).values_list("user_id", "player__name")
            if users
            else []
        )
        for change in changes:
            change._name = players.get(change.user_id, change.by)
        return changes

    @classmethod
    def who(cls, match: Match, kind: str, first: int, last: int) -> list[tuple[int | None, str]]:
        """Who last did `kind` to each of hands `first` to `last`, each once: (their account's
        id, their `name`)."""
        rows = cls.objects.filter(match=match, kind=kind, number__range=(first, last))
        latest: dict[int, Change] = {}
        for row in rows.order_by("at", "pk").only("number", "user_id", "by"):
            latest[row.number] = row
        named = cls.named(match, (row for _, row in sorted(latest.items())))
        return list(dict.fromkeys((c.user_id, c.name) for c in named if c.name))

    @classmethod
    def authors(cls, match: Match, numbers: list[int]) -> dict[int, Change]:
        """The last save or edit of each of these hands: who wrote the hand as it stands,
        each with its `name` (as `named` has it, read in the same statement: every board
        asks)."""
        if not numbers:
            return {}
        sql = statement("AUTHORS").format(numbers=", ".join(["%s"] * len(numbers)))
        fields = ("id", "kind", "number", "user_id", "by", "at", "key")  # in the model's order
        found = {}
        kinds = (cls.Kind.SAVED, cls.Kind.EDITED)
        for *values, player_name in fetch(sql, match.group_id, match.pk, *kinds, *numbers):
            row = cls.from_db(None, fields, [*values[:5], moment(values[5]), values[6]])
            row._name = row.by if player_name is None else player_name
            found[row.number] = row
        return found
