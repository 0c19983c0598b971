"""The rules of Buck Euchre: rulesets, checking and scoring a hand, and a match as a fold.

Pure Python with no Django import, so that the match file, the forms, the models and the
admin all ask the same functions. The rules themselves are written down in docs/rules.md;
section numbers in comments refer to it.
"""

from __future__ import annotations

import heapq
import random
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, field, fields, replace
from typing import Any

SUITS = ("clubs", "diamonds", "hearts", "spades")
NO_TRUMP = "none"
TRICKS = 5  # every hand has exactly five tricks, whatever the number of players (§1)
SEAT_COUNTS = (3, 4, 5, 6)  # 5 or 6 play with the 8s (and 7s) added: 5 cards each (§1)

ORDER_UP, TRICK_BIDDING = "order_up", "tricks"
NO_TRUMP_HAND, REDEAL = "no_trump", "redeal"
TIES = ("lowest", "share", "play_on")
MOON, SWEEP, ZERO = "moon", "sweep", "zero"  # how a match was won (§5)
# Why a player may not drop out of a hand (§3), most telling first.
MAKER, TURNED, NO_TRUMP_PLAYED, LOW_SCORE = "maker", "turned", "no_trump", "low_score"
# The questions a hand can ask once its upcard is known, in the order a table answers them.
ASK_MAKER, ASK_TRUMP, ASK_BID, ASK_MOON, ASK_DROPPED, ASK_TRICKS = (
    "maker",
    "trump",
    "bid",
    "moon",
    "dropped",
    "tricks",
)
RANKS = ("9", "10", "J", "Q", "K", "A")
DECK = tuple((rank, suit) for suit in SUITS for rank in RANKS)  # a Euchre deck (§1)
MONEY = re.compile(r"[0-9]+(\.[0-9]{1,2})?")  # a non-negative amount, at most two places


class RuleError(ValueError):
    """A hand, a table or a ruleset that breaks the rules.

    `code` is the match file's error code, `message` a sentence a player understands and
    `field` the part of a hand (or of a table) at fault, for forms to attach the error to.
    """

    def __init__(self, code: str, message: str, field: str | None = None, hand: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.hand = hand  # the 1-based number of the hand at fault, when there is one

    def located(self) -> str:
        """The message, led by the hand at fault when there is one: "Hand 2: …"."""
        return f"Hand {self.hand}: {self.message}" if self.hand else self.message


# --- Rulesets (§7, §8) -------------------------------------------------------------------


@dataclass(frozen=True)
class Ruleset:
    starting_score: int = 25
    players: tuple[int, ...] = (4,)
    auto_trump: str | None = "clubs"
    auto_trump_dealer_needs: int | None = None
    bidding: str = ORDER_UP
    maker_needs: int = 3
    min_bid: int = 2
    all_pass: str = NO_TRUMP_HAND
    no_drop_at_or_below: int | None = None
    set_penalty: int | None = 5  # None: no set, the maker just counts tricks (§4)
    zero_trick_penalty: int = 5
    sweep_wins: bool = True
    lone_maker_sweeps: bool = True
    ties: str = "lowest"
    cap_at_start: bool = False  # a penalty stops at the starting score (§4)
    moon: bool = False  # a maker on the board may shoot the moon (§4, §5)
    count_up: bool = False  # shown counted up to the target; the engine counts down (§7)

    def options(self) -> dict[str, object]:
        """Every option by name, as the match file writes them."""
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in fields(self)
        }


OPTION_NAMES = tuple(f.name for f in fields(Ruleset))


def _int(
    low: int | None = None, high: int | None = None, nullable: bool = False
) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        if value is None:
            return nullable
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        return (low is None or value >= low) and (high is None or value <= high)

    return check


def _one_of(*choices: str, nullable: bool = False) -> Callable[[object], bool]:
    return lambda value: (
        (value is None and nullable) or (isinstance(value, str) and value in choices)
    )


def _seat_counts(value: object) -> bool:
    return (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and all(isinstance(n, int) and not isinstance(n, bool) for n in value)
        and len(set(value)) == len(value)
        and set(value) <= set(SEAT_COUNTS)
    )


# Points are bounded so that every score of the longest match the app stores (1,000 hands,
# each costing at most a set and a no-trick penalty) fits a 32-bit database integer.
MAX_POINTS = 1_000_000

# What each option accepts, and how a player would say it.
OPTION_CHECKS = {
    "starting_score": (_int(1, MAX_POINTS), f"a whole number from 1 to {MAX_POINTS:,}"),
    "players": (_seat_counts, "a list of seat counts from 3 to 6"),
    "auto_trump": (_one_of(*SUITS, nullable=True), "a suit or null"),
    "auto_trump_dealer_needs": (_int(1, TRICKS, nullable=True), "a number from 1 to 5, or null"),
    "bidding": (_one_of(ORDER_UP, TRICK_BIDDING), '"order_up" or "tricks"'),
    "maker_needs": (_int(1, TRICKS), "a number from 1 to 5"),
    "min_bid": (_int(1, TRICKS), "a number from 1 to 5"),
    "all_pass": (_one_of(NO_TRUMP_HAND, REDEAL), '"no_trump" or "redeal"'),
    "no_drop_at_or_below": (
        _int(-MAX_POINTS, MAX_POINTS, nullable=True),
        f"a whole number from -{MAX_POINTS:,} to {MAX_POINTS:,}, or null",
    ),
    "set_penalty": (
        _int(0, MAX_POINTS, nullable=True),
        f"a whole number from 0 to {MAX_POINTS:,}, or null",
    ),
    "zero_trick_penalty": (_int(0, MAX_POINTS), f"a whole number from 0 to {MAX_POINTS:,}"),
    "sweep_wins": (lambda v: isinstance(v, bool), "true or false"),
    "lone_maker_sweeps": (lambda v: isinstance(v, bool), "true or false"),
    "ties": (_one_of(*TIES), '"lowest", "share" or "play_on"'),
    "cap_at_start": (lambda v: isinstance(v, bool), "true or false"),
    "moon": (lambda v: isinstance(v, bool), "true or false"),
    "count_up": (lambda v: isinstance(v, bool), "true or false"),
}


# The largest stake the app takes, in cents: 999,999.99 a game, a point or a set, so that what
# one match can come to, at the largest scores, fits a 64-bit database integer. The new-match
# form, the import and any other way a stake comes in ask this, and refuse with STAKE_TOO_BIG;
# a payment recorded between players is bounded by it too.
MAX_STAKE_CENTS = 99_999_999
STAKE_TOO_BIG = f"Stakes must be under {(MAX_STAKE_CENTS + 1) // 100:,}."


# What a match can be played for: the fields of Stakes, the keys of the match file's "stakes"
# and, with "_cents", the columns of a stored match. Any of them above 0 and the match is played
# for money (Stakes.__bool__; models.STAKED asks the same of the columns).
STAKE_NAMES = ("per_game", "per_point", "per_set")


@dataclass(frozen=True)
class Stakes:
    """Money per match, in whole cents (§6)."""

    per_game: int = 0
    per_point: int = 0
    per_set: int = 0
    currency: str = "USD"

    def __bool__(self) -> bool:
        """Played for money."""
        return any(getattr(self, name) for name in STAKE_NAMES)


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    description: str
    ruleset: Ruleset
    stakes: Stakes = Stakes()
    # Options the written rules leave open, whose value here is the house's choice: the two
    # house write-ups' scoring paragraphs name only the zero-trick penalty (docs/rules.md §4).
    left_open: tuple[str, ...] = ()


_standard = Ruleset()
PRESETS = {
    p.name: p
    for p in [
        Preset(
            "standard",
            "Standard",
            "4 players from 25. A turned club is trump for all; maker needs 3; "
            "set or no trick costs 5; all five tricks wins.",
            _standard,
        ),
        Preset(
            "short-15",
            "Short game to 15",
            "Standard rules, starting from 15 for a quicker match.",
            replace(_standard, starting_score=15),
        ),
        Preset(
            "short-20",
            "Short game to 20",
            "Standard rules, starting from 20.",
            replace(_standard, starting_score=20),
        ),
        Preset(
            "dirty-clubs",
            "Dirty Clubs",
            "4 players from 20. Bid for tricks (2 to 5); the high bidder names trump "
            "and must take the bid. Nobody bids: redeal.",
            replace(_standard, starting_score=20, bidding=TRICK_BIDDING, all_pass=REDEAL),
        ),
        Preset(
            "three-widow",
            "3 players (widow)",
            "3 players from 15 with a widow. At 5 or below you may not drop out.",
            replace(_standard, players=(3,), starting_score=15, no_drop_at_or_below=5),
        ),
        Preset(
            "no-dirty-clubs",
            "No dirty clubs",
            "Standard, but a turned club is like any other suit: it can be ordered up or passed.",
            replace(_standard, auto_trump=None),
        ),
        Preset(
            "spades-21",
            "Spades 21",
            "3 or 4 players from 21. A turned spade is trump and the dealer must take 3. "
            "$1 a game and 10¢ a point.",
            replace(
                _standard,
                players=(3, 4),
                starting_score=21,
                auto_trump="spades",
                auto_trump_dealer_needs=3,
                sweep_wins=False,
            ),
            Stakes(per_game=100, per_point=10),
            left_open=("set_penalty",),
        ),
        Preset(
            "three-15",
            "3 players to 15",
            "3 players from 15 with a 24-card deck. A turned club: the dealer must take 2. "
            "Nobody orders: redeal. At 5 or below you may not drop out.",
            replace(
                _standard,
                players=(3,),
                starting_score=15,
                auto_trump_dealer_needs=2,
                all_pass=REDEAL,
                no_drop_at_or_below=5,
                sweep_wins=False,
            ),
            left_open=("set_penalty",),
        ),
        # Dirty Clubs as zaudtke/nobody-keeps-score writes it (docs/nks-dirty-clubs-spec.md):
        # counted up to 15, a "bump" for falling short that never goes below 0 counted up.
        Preset(
            "dirty-clubs-up",
            "Dirty Clubs, counted up",
            "3 to 6 players, counting up to 15. Bid for tricks (2 to 5); nobody bids: redeal. "
            "At 13 or more you may not drop out. A maker who has played may shoot the moon. "
            "25¢ a game and 10¢ a bump.",
            replace(
                _standard,
                players=(3, 4, 5, 6),
                starting_score=15,
                bidding=TRICK_BIDDING,
                all_pass=REDEAL,
                no_drop_at_or_below=2,
                sweep_wins=False,
                ties="play_on",
                cap_at_start=True,
                moon=True,
                count_up=True,
            ),
            Stakes(per_game=25, per_set=10),
        ),
    ]
}


def make_ruleset(preset: str, **overrides: Any) -> Ruleset:  # each checked by OPTION_CHECKS
    """The preset's ruleset with the table's own house rules on top; raises `bad_rules`."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RuleError("bad_rules", f"There is no rule set called {preset!r}.", "preset")
    for name, value in overrides.items():
        if name not in OPTION_CHECKS:
            raise RuleError("bad_rules", f"There is no rule option called {name!r}.", name)
        check, wanted = OPTION_CHECKS[name]
        if not check(value):
            raise RuleError("bad_rules", f"The option {name} must be {wanted}.", name)
    if "players" in overrides:
        overrides["players"] = tuple(sorted(overrides["players"]))
    return replace(PRESETS[preset].ruleset, **overrides)


OPTIONS_WORDS = (
    'The options are the house rules as names and values, such as {"starting_score": 15}, '
    "or {} for none."
)


def ruleset_of(preset: str, options: object) -> Ruleset:
    """The ruleset of a preset and its options as stored (a match's JSON): `bad_rules`, on
    the options, where they are not names and values (the admin can type any JSON there)."""
    if not isinstance(options, dict):
        raise RuleError("bad_rules", OPTIONS_WORDS, "options")
    return make_ruleset(preset, **options)


def ruleset_overrides(preset: str, ruleset: Ruleset) -> dict[str, object]:
    """The options where `ruleset` differs from the preset: the table's house rules."""
    base = PRESETS[preset].ruleset.options()
    return {k: v for k, v in ruleset.options().items() if base[k] != v}


def parse_money(text: str) -> int:
    """Cents from a plain decimal string such as "1.70"; raises ValueError on anything else."""
    if not isinstance(text, str) or not MONEY.fullmatch(text):
        raise ValueError(text)
    units, _, cents = text.partition(".")
    return int(units) * 100 + int(cents.ljust(2, "0") or 0)


def format_money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


# The longest name a player can have, in characters: the database column, the new-match form,
# a rename and an import all ask this.
NAME_LENGTH = 40
# The longest currency label ("USD", "$", "quarters"): the database columns of a match and a
# payment, the new-match form and an import all ask this.
CURRENCY_LENGTH = 16

PLAIN_NAME = (
    "A name can hold letters, digits, signs and spaces, but no control character "
    "(such as a line break or NUL), no invisible mark (such as a zero-width space or a "
    "right-to-left override) and no broken Unicode."
)
# Characters a name never shows, or that turn the text around it: control characters (Cc),
# halves of UTF-16 pairs (Cs), formatting marks (Cf: the bidi embeddings, overrides and
# isolates U+202A–U+202E and U+2066–U+2069, the zero-width space, joiners and direction
# marks U+200B–U+200F, the word joiner U+2060, the byte-order mark U+FEFF, the Arabic letter
# mark U+061C, the soft hyphen …) and the line and paragraph separators (Zl, Zp). A name
# with a right-to-left override shows to the whole group reversed, one with a zero-width
# space looks like another player's.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cs", "Cf", "Zl", "Zp"})
# Letters Unicode calls letters that draw nothing: the Hangul fillers.
HIDDEN_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def plain_text(text: str) -> bool:
    """No control character (NUL, a line break …), no invisible or direction-turning mark and
    no half of a UTF-16 pair (HIDDEN_CATEGORIES): text that any database stores and any page
    shows as typed (PostgreSQL refuses NUL outright). Every name (a player's, a group's, a
    table's) and a match file's currency ask this, in forms and imports alike."""
    return not any(
        c in HIDDEN_LETTERS or unicodedata.category(c) in HIDDEN_CATEGORIES for c in text
    )


def name_key(name: str) -> str:
    """What two spellings of one person share: capitals and spaces don't count, so "ann",
    "Ann" and " ANN " are one player, and "Ann  Lee" is Ann Lee. Every match of a name
    against another in the app (a table, a saved player, a rename, an import's "already
    imported") compares these; a match file's own names are compared as written, trimmed."""
    return " ".join(name.split()).casefold()


def check_table(ruleset: Ruleset, players: list[str] | tuple[str, ...], first_dealer: str) -> None:
    """Raise `bad_table` unless the seats suit the rules."""
    if len(players) not in ruleset.players:
        counts = _or([str(n) for n in ruleset.players])
        raise RuleError(
            "bad_table",
            f"These rules are for {counts} players, not {len(players)}.",
            "players",
        )
    if any(not name.strip() for name in players):
        raise RuleError("bad_table", "Every player needs a name.", "players")
    if not all(plain_text(name) for name in players):
        raise RuleError("bad_table", PLAIN_NAME, "players")
    for i, name in enumerate(players):
        if name in players[:i]:
            raise RuleError(
                "bad_table",
                f"{name} is seated twice; every player needs their own name.",
                "players",
            )
    if first_dealer not in players:
        raise RuleError(
            "bad_table", f"The first dealer, {first_dealer}, is not at the table.", "first_dealer"
        )


def check_people(players: Iterable[str]) -> None:
    """Raise `bad_table` where two seats are one person: names alike but for capitals and
    spaces (name_key). A match file's table is its names as written (check_table: "ann" and
    Ann are two names there, as docs/format.md says); a group's players are people, so a
    table of the app seats no one twice in any spelling."""
    seated: dict[str, str] = {}
    for name in players:
        first = seated.setdefault(name_key(name), name)
        if first != name:
            raise RuleError(
                "bad_table",
                f"{first} and {name} are one name (capitals and spaces don't count), so one "
                "person seated twice; every player needs their own name.",
                "players",
            )


def deal_for_jack(
    players: Sequence[str], rnd: random.Random | None = None
) -> tuple[list[tuple[int, str, str, str]], str]:
    """Choose the first dealer as tables do (§1): deal a shuffled Euchre deck face up, one card
    to each seat in turn, until a Jack falls. Returns the cards dealt, as (seat, player, rank,
    suit), and the player who got the Jack."""
    deck = list(DECK)
    (rnd or random).shuffle(deck)
    dealt: list[tuple[int, str, str, str]] = []
    for i, (rank, suit) in enumerate(deck):
        seat = i % len(players)
        dealt.append((seat, players[seat], rank, suit))
        if rank == "J":
            return dealt, players[seat]
    raise AssertionError("a Euchre deck always holds a Jack")


def cut_for_deal(
    players: Sequence[str], rnd: random.Random | None = None
) -> tuple[list[tuple[int, str, str, str]], str]:
    """Choose the first dealer by a cut (§1): each player in seat order takes a card from a
    shuffled Euchre deck, and the lowest card deals (9 low, Ace high, suits all alike); those
    tied for lowest cut again from what is left. Returns the cards cut, as (seat, player,
    rank, suit), and the player who deals."""
    rnd = rnd or random.Random()
    deck: list[tuple[str, str]] = []
    cut: list[tuple[int, str, str, str]] = []
    cutting = list(range(len(players)))
    while True:
        if len(deck) < len(cutting):  # (ties all the way down: a fresh deck)
            deck = list(DECK)
            rnd.shuffle(deck)
        drawn = [(seat, players[seat], *deck.pop()) for seat in cutting]
        cut.extend(drawn)
        low = min(RANKS.index(rank) for _, _, rank, _ in drawn)
        cutting = [seat for seat, _, rank, _ in drawn if RANKS.index(rank) == low]
        if len(cutting) == 1:
            return cut, players[cutting[0]]


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


def _or(words: list[str]) -> str:
    """ "3", "3 or 4", "3, 4, 5 or 6"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _is(names: Sequence[str]) -> str:
    return "is" if len(names) == 1 else "are"


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


@dataclass(frozen=True)
class MatchState:
    """A match after some hands: everything is folded from the hands, nothing stored twice."""

    ruleset: Ruleset
    players: tuple[str, ...]
    scores: dict[str, int]
    dealer: str  # who deals the next hand
    hands: int = 0
    sets: dict[str, int] = field(default_factory=dict)  # hands each player fell short (§6)
    winners: tuple[str, ...] = ()
    won_by: str | None = None

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    def left_of(self, name: str) -> str:
        return self.players[(self.players.index(name) + 1) % len(self.players)]

    def on_board(self, player: str) -> bool:
        """Whether `player` played (did not drop out of) an earlier hand: took a trick or fell
        short (§4). A score moves down only by tricks taken and up only by a penalty, which is
        falling short, so the scores and `sets` tell it without another fold."""
        return self.sets.get(player, 0) > 0 or self.scores[player] != self.ruleset.starting_score

    def shown(self, player: str) -> int:
        """A score as the table sees it (§7 `count_up`)."""
        return shown_score(self.ruleset, self.scores[player])

    def must_play(self) -> tuple[str, ...]:
        """Who may not drop out of the next hand because of their score (§3)."""
        limit = self.ruleset.no_drop_at_or_below
        if limit is None:
            return ()
        return tuple(p for p in self.players if self.scores[p] <= limit)

    def shape(self, upcard: str, maker: str | None = None, passed: bool = False) -> HandShape:
        """What the next hand asks, given its upcard and, once known, who made trump (or that
        everybody passed). Both are ignored where the rules decide them."""
        r = self.ruleset
        if upcard not in SUITS:
            raise RuleError("bad_file", f"{upcard!r} is not a suit.", "upcard")
        automatic = upcard == r.auto_trump
        bidding = not automatic and r.bidding == TRICK_BIDDING
        passed = passed and not automatic
        asks: tuple[str, ...]
        if automatic:
            maker = self.dealer if r.auto_trump_dealer_needs is not None else None
        elif passed:
            maker = None
        # A moon needs a maker, and one on the board (§4).
        moon = r.moon and maker is not None and self.on_board(maker)
        ask_moon = (ASK_MOON,) if moon else ()
        if automatic:
            needs = r.auto_trump_dealer_needs if maker else None
            trump, asks = upcard, ask_moon + (ASK_TRICKS,)
            must_play = dict.fromkeys(self.players, TURNED)
        elif passed:
            needs, trump = None, NO_TRUMP
            redeal = r.all_pass == REDEAL
            asks = (ASK_MAKER,) if redeal else (ASK_MAKER, ASK_TRICKS)
            must_play = {} if redeal else dict.fromkeys(self.players, NO_TRUMP_PLAYED)
        else:
            needs, trump = (None if bidding else r.maker_needs), None
            asks = (ASK_MAKER,)
            if maker is not None:
                asks += (ASK_TRUMP,) + ((ASK_BID,) if bidding else ()) + ask_moon
                asks += (ASK_DROPPED, ASK_TRICKS)
            must_play = dict.fromkeys(self.must_play(), LOW_SCORE)
        if maker is not None:
            must_play[maker] = MAKER
        return HandShape(
            upcard=upcard,
            automatic=automatic,
            trump=trump,
            default_trump=upcard,
            maker=maker,
            needs=needs,
            asks_bid=bidding,
            bids=tuple(range(r.min_bid, TRICKS + 1)) if bidding else (),
            all_pass=None if automatic else r.all_pass,
            must_play={p: must_play[p] for p in self.players if p in must_play},
            passed=passed,
            asks=asks,
            moon=moon,
        )


def shown_score(ruleset: Ruleset, score: int) -> int:
    """A score as the table sees it: with `count_up`, the points earned towards the target,
    counted up from 0; else as the engine keeps it, counting down (§7). The engine, the match
    file and `replay` always count down."""
    return ruleset.starting_score - score if ruleset.count_up else score


# Why a player can't drop out (`HandShape.must_play`), in words: `p` is the player, `turned`
# the upcard's suit, `score` their score and `limit` the rule's.
MUST_PLAY_WORDS = {
    MAKER: "{p} made trump, so {p} can't drop out.",
    TURNED: "Nobody may drop out when a {turned} is turned, so {p} must play.",
    NO_TRUMP_PLAYED: "Nobody may drop out of a no-trump hand, so {p} must play.",
    LOW_SCORE: "{p} is at {score}, and at {limit} or below a player can't drop out.",
}
# LOW_SCORE where the scores are shown counted up (§7 `count_up`): the same rule, in the
# numbers the table sees.
LOW_SCORE_UP_WORDS = "{p} is at {score}, and at {limit} or above a player can't drop out."


def why_must_play(state: MatchState, shape: HandShape, player: str) -> str | None:
    """Why `player` may not drop out of the hand `shape` describes, in a sentence (§3,
    `MUST_PLAY_WORDS`); None when they may. What a refused drop says, and what a greyed name
    at the table says."""
    why = shape.must_play.get(player)
    if why is None:
        return None
    r = state.ruleset
    words = MUST_PLAY_WORDS[why]
    limit = r.no_drop_at_or_below
    if why == LOW_SCORE and r.count_up:
        assert limit is not None  # a low score is one at or below the limit
        words, limit = LOW_SCORE_UP_WORDS, shown_score(r, limit)
    return words.format(
        p=player,
        turned=shape.upcard[:-1],
        score=state.shown(player),
        limit=limit,
    )


def new_match(ruleset: Ruleset, players: Iterable[str], first_dealer: str) -> MatchState:
    players = tuple(players)
    check_table(ruleset, players, first_dealer)
    return MatchState(
        ruleset=ruleset,
        players=players,
        scores=dict.fromkeys(players, ruleset.starting_score),
        dealer=first_dealer,
        sets=dict.fromkeys(players, 0),
    )


def _is_tricks(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= TRICKS


def check_hand(state: MatchState, hand: Hand) -> None:
    """Raise RuleError for the first rule the hand breaks (§9); return None if it is sound."""
    _check(state, hand)


def _check(state: MatchState, hand: Hand) -> HandShape:
    """check_hand, answering the shape of the sound hand. It asks in the order a table
    answers (§9): the deal and the names, trump and the maker, who dropped out, the tricks."""
    if state.finished:
        raise RuleError("match_over", "The match is already over; no more hands can be played.")
    if hand.dealer is not None and hand.dealer != state.dealer:
        raise RuleError(
            "bad_dealer",
            f"It is {state.dealer}'s deal, not {hand.dealer}'s.",
            "dealer",
        )
    if hand.upcard not in SUITS:
        raise RuleError("bad_file", f"{hand.upcard!r} is not a suit.", "upcard")
    _check_names(state, hand)
    shape = state.shape(hand.upcard, hand.maker, hand.passed or hand.trump == NO_TRUMP)
    if hand.passed:
        _check_redeal(state.ruleset, hand, shape)
        _check_moon(state, hand, shape)
        return shape
    _check_trump_and_maker(state.ruleset, hand, shape)
    _check_moon(state, hand, shape)
    _check_drops(state, hand, shape)
    _check_tricks(state, hand, shape)
    return shape


def _check_names(state: MatchState, hand: Hand) -> None:
    """Everyone the hand names sits at the table, and nobody dropped out twice."""
    named = [hand.maker] if hand.maker is not None else []
    named += list(hand.dropped) + list(hand.tricks)
    strangers = [n for n in dict.fromkeys(named) if n not in state.players]
    if strangers:
        raise RuleError(
            "unknown_player",
            f"{join_names(strangers)} {_is(strangers)} not at this table.",
            "tricks",
        )
    twice = [p for p in state.players if hand.dropped.count(p) > 1]
    if twice:
        raise RuleError(
            "seat_count",
            f"{join_names(twice)} {_is(twice)} listed twice; each player either drops out "
            "or plays.",
            "dropped",
        )


def _check_redeal(r: Ruleset, hand: Hand, shape: HandShape) -> None:
    """A hand everybody passed is redealt where the rules say so, and nothing is played (§2)."""
    if shape.automatic:
        raise RuleError(
            "bad_trump",
            f"A turned {hand.upcard[:-1]} is trump automatically, so the hand can't be passed.",
            "trump",
        )
    if r.all_pass != REDEAL:
        raise RuleError(
            "bad_pass",
            "With these rules a hand where everybody passes is played with no trump, not redealt.",
            "trump",
        )
    if hand.dropped or hand.tricks:
        raise RuleError(
            "bad_pass",
            "Everybody passed and the cards are dealt again, so nobody dropped out or "
            "took a trick.",
            "tricks",
        )


def _check_trump_and_maker(r: Ruleset, hand: Hand, shape: HandShape) -> None:
    """Trump, the maker and the bid, as the upcard and the rules allow them (§2)."""
    if shape.automatic:
        if hand.trump is not None and hand.trump != shape.trump:
            raise RuleError(
                "bad_trump",
                f"A turned {hand.upcard[:-1]} makes {hand.upcard} trump, not "
                f"{'no trump' if hand.trump == NO_TRUMP else hand.trump}.",
                "trump",
            )
        if shape.maker is None and hand.maker is not None:
            raise RuleError(
                "bad_maker",
                f"Nobody makes trump when a {hand.upcard[:-1]} is turned, so {hand.maker} "
                "can't be the maker.",
                "maker",
            )
        if shape.maker is not None and hand.maker not in (None, shape.maker):
            raise RuleError(
                "bad_maker",
                f"On a turned {hand.upcard[:-1]} the dealer, {shape.maker}, is the maker, "
                f"not {hand.maker}.",
                "maker",
            )
        if hand.bid is not None:
            raise RuleError("bad_bid", f"Nobody bids when a {hand.upcard[:-1]} is turned.", "bid")
    elif hand.trump is None:
        raise RuleError(
            "bad_trump", "Say what was trump, or that it was played with no trump.", "trump"
        )
    elif hand.trump == NO_TRUMP:
        if r.all_pass == REDEAL:
            raise RuleError(
                "bad_pass",
                "With these rules, when everybody passes the cards are redealt; "
                "there is no no-trump hand.",
                "trump",
            )
        if hand.maker is not None:
            raise RuleError(
                "bad_maker",
                f"A no-trump hand has no maker, so {hand.maker} can't be the maker.",
                "maker",
            )
        if hand.bid is not None:
            raise RuleError("bad_bid", "A no-trump hand has no bid.", "bid")
    elif hand.trump not in SUITS:
        raise RuleError("bad_file", f"{hand.trump!r} is not a suit.", "trump")
    else:
        if hand.maker is None:
            raise RuleError("bad_maker", f"Say who made {hand.trump} trump.", "maker")
        if r.bidding == TRICK_BIDDING:
            if hand.bid is None:
                raise RuleError("bad_bid", f"Say how many tricks {hand.maker} bid.", "bid")
            if not _is_tricks(hand.bid) or hand.bid < r.min_bid:
                raise RuleError(
                    "bad_bid",
                    f"{hand.maker}'s bid must be from {r.min_bid} to {TRICKS}.",
                    "bid",
                )
        elif hand.bid is not None:
            raise RuleError("bad_bid", "With these rules trump is ordered up, not bid for.", "bid")


def _check_moon(state: MatchState, hand: Hand, shape: HandShape) -> None:
    """A moon only where the rules play it, by a maker on the board, on a bid of 5 (§4)."""
    if not hand.moon:
        return
    maker = shape.maker
    if not state.ruleset.moon:
        who = f", so {maker} can't declare it" if maker else ""
        raise RuleError("bad_moon", f"These rules have no shooting the moon{who}.", "moon")
    if hand.passed:
        raise RuleError("bad_moon", "Everybody passed, so nobody can shoot the moon.", "moon")
    if maker is None:
        why = (
            f"nobody makes trump when a {hand.upcard[:-1]} is turned"
            if shape.automatic
            else "a no-trump hand has no maker"
        )
        raise RuleError("bad_moon", f"Only a maker can shoot the moon, and {why}.", "moon")
    if not state.on_board(maker):
        raise RuleError(
            "bad_moon",
            f"{maker} can't shoot the moon: {maker} hasn't taken a trick or fallen short yet "
            "this match.",
            "moon",
        )
    if shape.asks_bid and hand.bid != TRICKS:
        raise RuleError(
            "bad_moon",
            MOON_BID.format(maker=maker, bid=hand.bid),
            "bid",
        )


def _check_drops(state: MatchState, hand: Hand, shape: HandShape) -> None:
    """Only those the rules let drop out did, and nobody both dropped out and played (§3)."""
    for p in hand.dropped:
        why = why_must_play(state, shape, p)
        if why is not None:
            raise RuleError("must_play", why, "dropped")
    crossed = [p for p in state.players if p in hand.dropped and p in hand.tricks]
    if crossed:
        raise RuleError(
            "seat_count",
            f"{join_names(crossed)} {_is(crossed)} listed twice, as dropped out and with "
            "tricks; each player either drops out or plays.",
            "dropped",
        )


def _check_tricks(state: MatchState, hand: Hand, shape: HandShape) -> None:
    """Every seat once, each a count of tricks, five in all (§1, §4)."""
    missing = [p for p in state.players if p not in hand.dropped and p not in hand.tricks]
    if missing:
        raise RuleError(
            "seat_count",
            f"{join_names(missing)} is missing from the hand: say whether they dropped out or "
            "how many tricks they took."
            if len(missing) == 1
            else f"{join_names(missing)} are missing from the hand: say whether each dropped out "
            "or how many tricks they took.",
            "tricks",
        )
    for p, n in hand.tricks.items():
        if not _is_tricks(n):
            raise RuleError(
                "bad_tricks",
                f"{p}'s tricks must be a whole number from 0 to {TRICKS}, not {n!r}.",
                "tricks",
            )
    total = sum(hand.tricks.values())
    if total != shape.tricks:
        raise RuleError(
            "tricks_total",
            TRICKS_TOTAL.format(n=total, tricks=shape.tricks),
            "tricks",
        )


def _outcome(
    state: MatchState, hand: Hand, shape: HandShape
) -> tuple[dict[str, int], tuple[str, ...], tuple[str, ...]]:
    """The changes of score of a checked hand, who was set and who was euchred (§4, §12)."""
    r = state.ruleset
    changes = dict.fromkeys(state.players, 0)
    needs = shape.needed(hand)
    set_, euchred = [], []
    for p in state.players:
        took = hand.tricks.get(p)
        if took is None:
            continue  # dropped, or nobody played
        # With no set penalty the maker is scored like everyone else who played (§4).
        if p == shape.maker and r.set_penalty is not None and needs is not None and took < needs:
            changes[p] = _penalty(r, state.scores[p], r.set_penalty)
            set_.append(p)
        elif took == 0:
            changes[p] = _penalty(r, state.scores[p], r.zero_trick_penalty)
        else:
            changes[p] = -took
        if took == 0:
            euchred.append(p)
    return changes, tuple(set_), tuple(euchred)


def _penalty(r: Ruleset, score: int, penalty: int) -> int:
    """A penalty, stopped at the starting score with `cap_at_start` (§4)."""
    if r.cap_at_start:
        return max(0, min(penalty, r.starting_score - score))
    return penalty


def play(state: MatchState, hand: Hand) -> tuple[MatchState, HandResult]:
    """Check and score one hand: the match after it, and what the hand did."""
    shape = _check(state, hand)
    r = state.ruleset
    changes, set_, euchred = _outcome(state, hand, shape)
    scores = {p: state.scores[p] + changes[p] for p in state.players}
    moon = shape.maker if hand.moon else None
    moon_made = moon is not None and hand.tricks.get(moon) == shape.tricks
    missed = moon if moon is not None and not moon_made else None
    short = set_ + euchred
    sets = state.sets
    if short or missed:
        # A missed moon counts as two hands fallen short, whatever set_penalty says (§6).
        sets = {p: n + (2 if p == missed else p in short) for p, n in sets.items()}
    sweep = None
    if r.sweep_wins and not hand.passed:
        for p, took in hand.tricks.items():
            lone = len(hand.tricks) == 1
            if took == shape.tricks and (not lone or r.lone_maker_sweeps):
                sweep = p
    winners: tuple[str, ...] = ()
    won_by: str | None = None
    if moon_made:
        assert moon is not None
        winners, won_by = (moon,), MOON
    elif sweep:
        winners, won_by = (sweep,), SWEEP
    elif not hand.passed:
        low = min(scores.values())
        if low <= 0:
            leaders = tuple(p for p in state.players if scores[p] == low)
            if r.ties == "lowest":
                winners = leaders
            elif r.ties == "share":
                winners = tuple(p for p in state.players if scores[p] <= 0)
            elif len(leaders) == 1:
                winners = leaders
            won_by = ZERO if winners else None
    number = state.hands + 1
    after = replace(
        state,
        scores=scores,
        dealer=state.left_of(state.dealer),
        hands=number,
        sets=sets,
        winners=winners,
        won_by=won_by,
    )
    result = HandResult(
        number,
        state.dealer,
        hand,
        changes,
        scores,
        shape,
        sweep=sweep,
        set=set_,
        euchred=euchred,
        sets=sets,
        moon=moon,
    )
    return after, result


def replay(state: MatchState, hands: Iterable[Hand]) -> tuple[MatchState, list[HandResult]]:
    """Fold hands over a match. A RuleError gets `hand`, the 1-based number at fault."""
    results = []
    for hand in hands:
        try:
            state, result = play(state, hand)
        except RuleError as e:
            e.hand = state.hands + 1
            raise
        results.append(result)
    return state, results


# --- Money (§6) ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    payer: str
    payee: str
    cents: int


def owes(stakes: Stakes, score: int, sets: int) -> int:
    """What a loser pays, in cents, split between the winners: a game, their points above
    zero, and each hand they fell short (§6)."""
    return stakes.per_game + stakes.per_point * max(0, score) + stakes.per_set * sets


def most_owed(ruleset: Ruleset, stakes: Stakes, hands: int) -> tuple[int, int, int]:
    """The most one loser can owe in a match of at most `hands` hands under these rules and
    stakes (§6): (cents, points, hands fallen short). A score goes up by at most a penalty
    a hand (§4: a set, a hand without a trick, a missed moon) and never past the starting
    score with `cap_at_start`; a hand counts as fallen short at most once, a missed moon
    twice."""
    penalty = max(ruleset.set_penalty or 0, ruleset.zero_trick_penalty)
    points = ruleset.starting_score + (0 if ruleset.cap_at_start else penalty * hands)
    short = hands * (2 if ruleset.moon else 1)
    return owes(stakes, points, short), points, short


def settle(state: MatchState, stakes: Stakes) -> tuple[list[Payment], dict[str, int]]:
    """Who pays whom, and each player's net, once the match is over; empty otherwise."""
    if not state.finished or not stakes:
        return [], {}
    winners = state.winners
    payments = []
    net = dict.fromkeys(state.players, 0)
    for loser in state.players:
        if loser in winners:
            continue
        owed = owes(stakes, state.scores[loser], state.sets[loser])
        share, leftover = divmod(owed, len(winners))
        for i, winner in enumerate(winners):  # winners are in seat order
            cents = share + (1 if i < leftover else 0)
            if cents:
                payments.append(Payment(loser, winner, cents))
                net[loser] -= cents
                net[winner] += cents
    return payments, net


def payout_if_ended(state: MatchState, stakes: Stakes) -> list[Payment]:
    """Who would pay whom were a match still being played to end now, its leaders (the
    lowest scores) winning as the ties option has them win (§5, §6): none where it is over,
    not played for money, or where a tie would play on."""
    if state.finished or not stakes or not state.hands:
        return []
    low = min(state.scores.values())
    leaders = tuple(p for p in state.players if state.scores[p] == low)
    if state.ruleset.ties == "play_on" and len(leaders) > 1:
        return []
    payments, _ = settle(replace(state, winners=leaders), stakes)
    return payments


# --- A night (§11) -------------------------------------------------------------------------


def fewest_transfers(net: dict[str, int]) -> list[Payment]:
    """The fewest payments that settle every net (cents, summing to zero) exactly (§11).

    With n players owed or owing, the fewest is n − g, g being the most disjoint groups of
    them whose nets each sum to zero; greedy pairing can miss it (+6 +4 −4 −3 −3 takes 3, not
    4). So: the most groups for every subset, by a search over bitmasks (2ⁿ·n steps, instant
    for a dozen players), then each group settled in one payment fewer than its size.
    Payments come by payer, then payee, in the order the players appear in `net`.
    """
    if sum(net.values()) != 0:
        raise ValueError("the nets of a night must sum to zero")
    order = {p: i for i, p in enumerate(net)}
    names = [p for p, cents in net.items() if cents]
    full = (1 << len(names)) - 1
    total = [0] * (full + 1)
    groups = [0] * (full + 1)  # the most zero-sum groups a subset splits into
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + net[names[low.bit_length() - 1]]
        best = max(groups[mask ^ (1 << i)] for i in range(len(names)) if mask >> i & 1)
        groups[mask] = best + (total[mask] == 0)
    # Walk down from everybody, one player at a time, keeping the most groups: each time
    # what is left sums to zero again, the players taken since form one group.
    payments, group, mask = [], {}, full
    while mask:
        gain = total[mask] == 0
        i = next(
            i
            for i in range(len(names))
            if mask >> i & 1 and groups[mask ^ (1 << i)] + gain == groups[mask]
        )
        group[names[i]] = net[names[i]]
        mask ^= 1 << i
        if total[mask] == 0:
            payments += _settle_group(group, order)
            group = {}
    return sorted(payments, key=lambda t: (order[t.payer], order[t.payee]))


def _settle_group(net: dict[str, int], order: dict[str, int]) -> list[Payment]:
    """A group whose nets sum to zero, settled in one payment fewer than its size.

    Each payment clears the first payer or the first payee left (or both, the last time).
    """
    owing = sorted((p for p in net if net[p] < 0), key=lambda p: order[p])
    owed = sorted((p for p in net if net[p] > 0), key=lambda p: order[p])
    left = dict(net)
    payments = []
    while owing:
        payer, payee = owing[0], owed[0]
        cents = min(-left[payer], left[payee])
        payments.append(Payment(payer, payee, cents))
        left[payer] += cents
        left[payee] -= cents
        if not left[payer]:
            owing.pop(0)
        if not left[payee]:
            owed.pop(0)
    return payments


# The exact search's 2ⁿ·n steps take a tenth of a second at 16 players, and four times as
# long with each two more: past 16 every page, CSV and command takes the same fallback (§11).
EXACT_SEARCH_MOST = 16
# One answer (a night's settle-up, the balances) searches at most this many steps in all,
# whatever number of currencies it settles: two and a half searches of 16 players (two of
# them and the small ones beside them), a quarter of a second here. A night of 16 currencies
# × 16 players would otherwise search 16 times (3.7–4.0 s for its page under load, #43 §1).
SEARCH_BUDGET = 5 * (EXACT_SEARCH_MOST << EXACT_SEARCH_MOST) // 2


def search_cost(net: Mapping[str, int]) -> int:
    """The steps of the exact search over these nets: n·2ⁿ, n players owed or owing."""
    n = sum(1 for cents in net.values() if cents)
    return n << n


def settle_nets(net: dict[str, int]) -> tuple[list[Payment], bool]:
    """Payments that settle every net (cents, summing to zero) exactly: (payments, whether
    they are the fewest), as `settle_currencies` settles one currency alone (`settle`)."""
    return settle_currencies({"": net})[""]


def settle_currencies(
    nets: Mapping[str, dict[str, int]],
) -> dict[str, tuple[list[Payment], bool]]:
    """Each currency's payments that settle its nets (cents, summing to zero) exactly:
    (payments, whether they are the fewest), the one answer for a night, a night's card, its
    CSV, the balances and `settle` (§11), in the order of `nets`.

    The fewest (`fewest_transfers`) where the search is small enough: up to EXACT_SEARCH_MOST
    players owed or owing, and within one budget of SEARCH_BUDGET steps shared by all the
    currencies of the answer, spent on the smallest searches first (then by currency), so
    that the same nets always give the same answer. Past either, the largest debt is paid
    to the largest credit, repeated (ties to the player who appears first): one payment
    fewer than their number at most, though perhaps not the fewest, in n log n steps
    whatever a group stores.
    """
    for net in nets.values():
        if sum(net.values()) != 0:
            raise ValueError("the nets must sum to zero")
    spent, found = 0, {}
    for currency in sorted(nets, key=lambda c: (search_cost(nets[c]), c)):
        net, cost = nets[currency], search_cost(nets[currency])
        small = sum(1 for cents in net.values() if cents) <= EXACT_SEARCH_MOST
        if small and spent + cost <= SEARCH_BUDGET:
            spent += cost
            found[currency] = fewest_transfers(net), True
        else:
            found[currency] = _largest_first(net), False
    return {currency: found[currency] for currency in nets}


def _largest_first(net: dict[str, int]) -> list[Payment]:
    """The largest debt paid to the largest credit, again and again (ties to the player who
    appears first in `net`), in n log n steps."""
    order = {p: i for i, p in enumerate(net)}
    owing = [(cents, order[p], p) for p, cents in net.items() if cents < 0]
    owed = [(-cents, order[p], p) for p, cents in net.items() if cents > 0]
    heapq.heapify(owing)
    heapq.heapify(owed)
    payments = []
    while owing:
        debt, i, payer = heapq.heappop(owing)
        credit, j, payee = heapq.heappop(owed)
        cents = min(-debt, -credit)
        payments.append(Payment(payer, payee, cents))
        if debt + cents:
            heapq.heappush(owing, (debt + cents, i, payer))
        if credit + cents:
            heapq.heappush(owed, (credit + cents, j, payee))
    return sorted(payments, key=lambda t: (order[t.payer], order[t.payee]))


# --- Statistics (§12) ----------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """One player's counts over some played hands (passed hands don't count); they add up."""

    dealt_in: int = 0  # hands played at their table
    stayed_in: int = 0  # of those, hands they played rather than dropped
    could_drop: int = 0  # hands in which the rules let them drop (§3)
    stayed_by_choice: int = 0  # of those, hands they stayed in: the stayed-in rate's top
    made_trump: int = 0  # hands they were the maker
    made: int = 0  # of those, hands they took what they needed
    was_set: int = 0  # of those, hands they were set (never with set_penalty null)
    euchred: int = 0  # hands they played and took no trick, maker or not
    sweeps: int = 0  # hands they took all five tricks
    points: int = 0  # the sum of their score changes; over dealt_in, points per hand

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def tallies(start: MatchState, results: list[HandResult]) -> dict[str, Tally]:
    """Each player's Tally over a match, from its start and the results `replay` gives."""
    counts = {p: dict.fromkeys((f.name for f in fields(Tally)), 0) for p in start.players}
    for result in results:
        hand, shape = result.hand, result.shape
        if hand.passed:
            continue
        for p, c in counts.items():
            took = hand.tricks.get(p)
            played = took is not None
            may_drop = p not in shape.must_play  # the maker, a turned suit, no trump, a low score
            c["dealt_in"] += 1
            c["stayed_in"] += played
            c["could_drop"] += may_drop
            c["stayed_by_choice"] += may_drop and played
            if p == shape.maker:
                needed = shape.needed(hand)
                assert took is not None and needed is not None  # a maker plays, for a number
                c["made_trump"] += 1
                c["made"] += took >= needed
                c["was_set"] += p in result.set
            c["euchred"] += p in result.euchred
            c["sweeps"] += took == TRICKS
            c["points"] += result.changes[p]
    return {p: Tally(**c) for p, c in counts.items()}


@dataclass(frozen=True)
class Moons:
    """One player's moons over some played hands (§12); they add up. Kept apart from Tally,
    each of whose counts is a column of the stored results."""

    declared: int = 0  # hands they declared the moon
    made: int = 0  # of those, hands they took all five tricks

    def __add__(self, other: Moons) -> Moons:
        return Moons(self.declared + other.declared, self.made + other.made)


def moons(start: MatchState, results: list[HandResult]) -> dict[str, Moons]:
    """Each player's Moons over a match, from its start and the results `replay` gives."""
    counts = dict.fromkeys(start.players, Moons())
    for result in results:
        if result.moon is not None:
            counts[result.moon] += Moons(1, int(result.moon_made))
    return counts
