"""Random valid matches, for the property tests and the benchmark."""

import itertools
import random
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from games import matchfile, rules
from games.rules import NO_TRUMP, REDEAL, SUITS, Hand, MatchState

TABLE = ("Ann", "Bob", "Cat", "Dan")
SIX = (*TABLE, "Eve", "Fay")  # for rules that seat 5 or 6 (the app stores 3 or 4 so far)


def random_hand(state: MatchState, rnd: random.Random, moons: bool = False) -> Hand:
    """A hand that the rules accept, of any kind the state's ruleset allows; with `moons`,
    a maker who may shoot the moon sometimes does (the app does not store a moon yet)."""
    shape = state.shape(rnd.choice(SUITS))
    players = state.players
    maker, trump, bid, dropped, moon = None, None, None, [], False
    if shape.automatic:
        trump = rnd.choice([None, shape.trump])
        moon = moons and shape.moon and rnd.random() < 0.3
        maker = rnd.choice([None, shape.maker])
    elif rnd.random() < 0.15:
        if shape.all_pass == REDEAL:
            return Hand(upcard=shape.upcard, passed=True)
        trump = NO_TRUMP
    else:
        maker = rnd.choice(players)
        trump = rnd.choice([shape.upcard, rnd.choice(SUITS)])
        if shape.asks_bid:
            bid = rnd.choice(shape.bids)
        if moons and state.shape(shape.upcard, maker).moon and rnd.random() < 0.3:
            moon, bid = True, (rules.TRICKS if shape.asks_bid else None)
        droppable = [p for p in players if p != maker and p not in shape.must_play]
        dropped = [p for p in droppable if rnd.random() < 0.4]
    playing = [p for p in players if p not in dropped]
    tricks = dict.fromkeys(playing, 0)
    for _ in range(rules.TRICKS):
        tricks[rnd.choice(playing)] += 1
    if moon and rnd.random() < 0.5:
        tricks = dict.fromkeys(playing, 0) | {maker or shape.maker: rules.TRICKS}
    return Hand(shape.upcard, trump, maker, bid, tuple(dropped), tricks, moon=moon)


def random_match(
    rnd: random.Random,
    preset: str,
    max_hands: int = 200,
    names: tuple[str, ...] = TABLE,
    moons: bool = False,
    **overrides,
) -> matchfile.Match:
    """A valid match of `preset`, played until it ends or has `max_hands` hands, seated from
    `names` (at most as many as `names` has)."""
    ruleset = rules.make_ruleset(preset, **overrides)
    players = names[: rnd.choice(ruleset.players)]
    first = rnd.choice(players)
    state = rules.new_match(ruleset, players, first)
    hands = []
    while not state.finished and len(hands) < max_hands:
        hand = random_hand(state, rnd, moons)
        state, _ = rules.play(state, hand)
        hands.append(hand)
    stakes = rules.Stakes(rnd.choice([0, 100]), rnd.choice([0, 5, 10]), rnd.choice([0, 25]))
    return matchfile.Match(preset, ruleset, stakes, players, first, tuple(hands))


def twenty_hands() -> matchfile.Match:
    """A standard match of 20 hands still going (drops, sets, clubs turned): the first seed
    whose random match lasts that long at four players, from 100."""
    for seed in itertools.count():
        match = random_match(random.Random(seed), "standard", max_hands=20, starting_score=100)
        if len(match.hands) == 20 and len(match.players) == 4:
            return match
    raise AssertionError  # unreachable: count() never ends


# Three matches' hands as a match file writes them (docs/format.md), for tests that import
# whole evenings: a standard table where Cat wins in four hands, and one where Bob sweeps.
# The turned club, everybody in, Ann 2 and the others 1 each: as the engine, a match file and
# the hand form (tricks by seat) have it.
CLUB_HAND = Hand("clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
CLUB = {"upcard": "clubs", "tricks": {"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1}}
CLUB_POST = {"upcard": "clubs", "t0": "2", "t1": "1", "t2": "1", "t3": "1"}
CAT_WINS = [
    {
        "upcard": "hearts",
        "trump": "hearts",
        "maker": "Bob",
        "dropped": ["Cat"],
        "tricks": {"Ann": 0, "Bob": 3, "Dan": 2},
    },
    CLUB,
    {"upcard": "spades", "trump": "none", "tricks": {"Ann": 1, "Bob": 1, "Cat": 2, "Dan": 1}},
    {
        "upcard": "diamonds",
        "trump": "spades",
        "maker": "Cat",
        "dropped": ["Ann", "Bob", "Dan"],
        "tricks": {"Cat": 5},
    },
]
SWEEP = [
    {
        "upcard": "hearts",
        "trump": "hearts",
        "maker": "Bob",
        "dropped": ["Ann", "Cat", "Dan"],
        "tricks": {"Bob": 5},
    }
]


CHICAGO = ZoneInfo("America/Chicago")
MONDAY = datetime(2026, 11, 2, 19, 30, tzinfo=CHICAGO)


# --- Match files -----------------------------------------------------------------------------

EXAMPLE = {
    "format": "buck-euchre/1",
    "rules": "standard",
    "stakes": {"per_game": "1.00", "per_point": "0.10", "per_set": "0.00", "currency": "USD"},
    "players": ["Ann", "Bob", "Cat", "Dan"],
    "first_dealer": "Dan",
    "hands": CAT_WINS,
}


def long_match(hands: int, start: str) -> dict:
    """A match file of `hands` turned clubs, on a table whose scores never reach zero."""
    return {
        **EXAMPLE,
        "played_at": start,
        "rules": {"preset": "standard", "starting_score": 1_000_000},
        "hands": [CLUB] * hands,
    }


# --- Match files for `import_match --group`: three nights, five players ---------------------


def _renamed(value, names: dict):
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    return value


def match_file(played_at: datetime, hands, players=TABLE) -> dict:
    """A standard match for $1.00 a game and 10¢ a point; `hands` are written for Ann, Bob,
    Cat and Dan in their seats, and played by `players` in those seats."""
    names = dict(zip(TABLE, players, strict=True))
    return {
        "format": "buck-euchre/1",
        "rules": "standard",
        "stakes": {"per_game": "1.00", "per_point": "0.10", "currency": "USD"},
        "players": list(players),
        "first_dealer": players[-1],
        "played_at": played_at.isoformat(),
        "hands": _renamed(hands, names),
    }


def three_nights() -> list[dict]:
    """Two matches a Monday for three weeks; Eve sits in for Dan on the second, and the last
    match of the third is still going."""
    week = timedelta(days=7)
    later = timedelta(hours=1)
    eve = ("Ann", "Bob", "Cat", "Eve")
    return [
        match_file(MONDAY, CAT_WINS),
        match_file(MONDAY + later, SWEEP),
        match_file(MONDAY + week, SWEEP, eve),
        match_file(MONDAY + week + later, CAT_WINS, eve),
        match_file(MONDAY + 2 * week, CAT_WINS, ("Dan", "Cat", "Bob", "Ann")),
        match_file(MONDAY + 2 * week + later, [CLUB]),
    ]


# RULES.md §10, worked example 8: dirty-clubs-up, a capped set and a moon.
EXAMPLE_8 = {
    "format": "buck-euchre/1",
    "rules": "dirty-clubs-up",
    "players": ["Ann", "Bob", "Cat"],
    "first_dealer": "Cat",
    "hands": [
        {
            "upcard": "hearts",
            "trump": "spades",
            "maker": "Ann",
            "bid": 3,
            "tricks": {"Ann": 1, "Bob": 2, "Cat": 2},
        },
        {
            "upcard": "diamonds",
            "trump": "hearts",
            "maker": "Bob",
            "bid": 5,
            "moon": True,
            "dropped": ["Ann", "Cat"],
            "tricks": {"Bob": 5},
        },
    ],
}


# The forms as a phone sends them: Bob orders hearts up, Cat drops, Bob takes 3 and Dan 2 (the
# maker by seat, the tricks by seat, Cat's left out); a new standard match of four.
ORDERED_POST = {
    "number": "1",
    "upcard": "hearts",
    "maker": "1",
    "trump": "hearts",
    "dropped": ["Cat"],
    "t0": "0",
    "t1": "3",
    "t3": "2",
}


# The new-match form as a phone sends it: the table above, a dealer picked at random; and
# started, Dan (seat 4) dealing first.
NEW_MATCH = {
    "preset": "standard",
    **{f"seat_{i}": name for i, name in enumerate(TABLE)},
    "dealer": "random",
}
STARTED = {**NEW_MATCH, "dealer": "3", "create": "1"}


def score_hand(state: MatchState, hand: Hand) -> dict[str, int]:
    """Each player's change of score for a hand (§4), after checking it."""
    return rules.play(state, hand)[1].changes


def nets_by_night(results) -> list[tuple[str, str, int, int, datetime]]:
    """(currency, name, night, net, when they began there) of these results (a queryset) over
    their finished matches played for money, by night, the latest first."""
    from django.db.models import Min

    from games.models.results import NET, STAKED

    rows = (
        results.finished()
        .filter(STAKED)
        .values_list("match__currency", "player__name", "match__night")
        .annotate(net=NET, started=Min("match__played_at"))
        .order_by("-started", "match__night", "player__name")
    )
    return list(rows)
