"""A hand and what it asks (§2–§4, §9): its shape, the next question, its result."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from games.rules.options import (
    ASK_BID,
    ASK_MAKER,
    ASK_TRICKS,
    REDEAL,
    TRICKS,
)

# --- Hands (§2–§4, §9) ---------------------------------------------------------------------


@dataclass(frozen=True)
class Hand:
    """One hand as a score keeper sees it. `tricks` maps every player who played to tricks."""

    upcard: str
    trump: str | None = None  # a suit, NO_TRUMP, or None where the rules give it
    maker: str | None = None
    bid: int | None = None
    dropped: tuple[str, ...] = ()
    tricks: dict[str, int] = field(default_factory=dict)
    passed: bool = False
    dealer: str | None = None
    moon: bool = False  # the maker declared the moon: all five tricks (§4)


def respell(hand: Hand, spelling: dict[str, str]) -> Hand:
    """The hand with each name in `spelling` written as `spelling` says (a name not in it
    stays): a file's "ann" as the "Ann" already saved."""

    def say(name: str) -> str:
        return spelling.get(name, name)

    return replace(
        hand,
        maker=say(hand.maker) if hand.maker is not None else None,
        dropped=tuple(say(p) for p in hand.dropped),
        tricks={say(p): n for p, n in hand.tricks.items()},
        dealer=say(hand.dealer) if hand.dealer is not None else None,
    )


@dataclass(frozen=True)
class HandShape:
    """What the rules ask of a hand once its upcard is known and, when given, who made trump
    or that everybody passed. The hand form asks exactly `asks` and shows nothing else."""

    upcard: str
    automatic: bool  # the upcard's suit is trump; no bidding
    trump: str | None  # the trump where the rules fix it (NO_TRUMP once everybody passed)
    default_trump: str | None  # the trump a maker takes unless they name another
    maker: str | None  # the dealer on automatic hands that have a maker; else the maker named
    needs: int | None  # what the maker needs where the rules, not a bid, say so
    asks_bid: bool  # the maker bids for tricks, and needs the bid
    bids: tuple[int, ...]  # the bids allowed
    all_pass: str | None  # NO_TRUMP_HAND or REDEAL when everyone may pass; None when not
    must_play: dict[
        str, str
    ]  # who may not drop out, and why: MAKER, TURNED, NO_TRUMP_PLAYED, LOW_SCORE
    passed: bool = False  # everybody passed
    asks: tuple[str, ...] = ()  # the questions still to put to the table, in order
    tricks: int = TRICKS  # tricks in the hand (§1)
    # The maker may declare the moon: the rules play it and the maker is on the board (§4);
    # where tricks are bid, only on a bid of 5.
    moon: bool = False

    @property
    def redeal(self) -> bool:
        """Everybody passed and the cards are dealt again: nothing is played or scored."""
        return self.passed and self.all_pass == REDEAL

    @property
    def trick_counts(self) -> range:
        """Every number of tricks one player can take."""
        return range(self.tricks + 1)

    def needed(self, hand: Hand) -> int | None:
        """The tricks the maker of `hand` needed: their bid where tricks are bid, else what the
        rules say; None with no maker."""
        if self.maker is None:
            return None
        if hand.moon:
            return self.tricks
        return hand.bid if self.asks_bid else self.needs

    def fill_in(self, tricks: dict[str, int | None]) -> dict[str, int | None]:
        """The tricks of the players who played, None where not yet known, filled in where
        the others fix them: the last one takes what is left, and once every trick is told
        the rest took none. A maker everyone else left alone takes every trick (§3), whatever
        was told before. Only for a page to show: a row filled in here is stored only once
        the player has seen it and saved it."""
        if len(tricks) == 1:
            return dict.fromkeys(tricks, self.tricks)
        unknown = [p for p, n in tricks.items() if n is None]
        left = self.tricks - sum(n for n in tricks.values() if n is not None)
        if len(unknown) == 1 and left >= 0:
            return {**tricks, unknown[0]: left}
        if unknown and left == 0:
            return {**tricks, **dict.fromkeys(unknown, 0)}
        return dict(tricks)

    def next_question(
        self, bid: int | None, moon: bool, tricks: Mapping[str, int | None]
    ) -> tuple[str, ...] | None:
        """The first question of the hand not yet answered, in the order the engine asks
        them (the hand form and the phone's both follow it): who made trump ("maker",); the
        maker's bid ("bid", maker); a moon on a bid short of all five ("moon_bid", maker,
        bid); the tricks of those with none told ("blank", *names), or too many already
        ("over", n); a total other than the hand's ("total", n). None: nothing is missing.
        `tricks` are those told of the players who played (None: not yet)."""
        if self.redeal:
            return None
        if ASK_MAKER in self.asks and self.maker is None and not self.passed:
            return ("maker",)
        if ASK_BID in self.asks and bid is None:
            return ("bid", str(self.maker))
        if moon and ASK_BID in self.asks and bid != self.tricks:
            return ("moon_bid", str(self.maker), str(bid))
        if ASK_TRICKS not in self.asks:
            return None
        given = sum(n for n in tricks.values() if n is not None)
        blank = [p for p, n in tricks.items() if n is None]
        if blank:
            return ("over", str(given)) if given > self.tricks else ("blank", *blank)
        if given != self.tricks:
            return ("total", str(given))
        return None


# Two of the engine's refusals that are also the hand form's next question (next_question):
# words.QUESTIONS names them for the form and the phone.
MOON_BID = f"{{maker}} can't shoot the moon on a bid of {{bid}}: the moon is a bid of {TRICKS}."
TRICKS_TOTAL = "The tricks add up to {n}; a hand always has {tricks}."


def join_names(names: Iterable[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class HandResult:
    number: int
    dealer: str
    hand: Hand
    changes: dict[str, int]
    scores: dict[str, int]
    shape: HandShape  # what the rules made of the hand (its maker, what they needed)
    sweep: str | None = None  # who took all five, when it counts as a sweep
    set: tuple[str, ...] = ()  # the maker who fell short, where sets count (§4)
    euchred: tuple[str, ...] = ()  # who played and took no trick, maker or not (§12)
    # After the hand, like `scores`: the hands each player has fallen short so far (§6), as
    # `MatchState.sets` holds them.
    sets: dict[str, int] = field(default_factory=dict)
    moon: str | None = None  # the maker who declared the moon (§4)

    @property
    def moon_made(self) -> bool:
        """The moon was declared and the maker took every trick."""
        return self.moon is not None and self.hand.tricks.get(self.moon) == self.shape.tricks

    @property
    def moon_missed(self) -> str | None:
        """The maker who declared the moon and missed it: two hands fallen short (§6)."""
        return self.moon if self.moon is not None and not self.moon_made else None

    @property
    def short(self) -> tuple[str, ...]:
        """Who fell short, for money per set (§6): set, played and took no trick, or missed
        the moon."""
        missed = (self.moon_missed,) if self.moon_missed else ()
        return tuple(dict.fromkeys(self.set + self.euchred + missed))
