"""The table's rules: the options and the presets that name them (§7, §8), stakes, names,
the seats and the deal for the first dealer."""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
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


def _or(words: list[str]) -> str:
    """ "3", "3 or 4", "3, 4, 5 or 6"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
