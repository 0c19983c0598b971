"""How the app words things for players: money, suits, who won, and each rule of a match in a
sentence. Plain Python (no Django), so that the pages, the commands and the tests say them
alike; the template filters in games/templatetags/games.py are these functions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import cast

from games import rules

SYMBOLS = {"USD": "$", "CAD": "$", "AUD": "$", "EUR": "€", "GBP": "£", "$": "$", "€": "€", "£": "£"}
SUIT_SYMBOLS = dict(zip(rules.SUITS, ("♣", "♦", "♥", "♠"), strict=True))  # rules.SUITS' order
MINUS = "−"
# Past rules.EXACT_SEARCH_MOST players owed or owing, the payments come from a quicker search (§11).
NOT_FEWEST = (
    "With so many players owing or owed, these payments settle everything, though perhaps not"
    " in the fewest."
)

# What a Save hears when the hand it sends was stored already (#33 §2, #35 §3).
BAD_KEY = (
    "This hand came with a key the app did not make (up to 64 letters, digits, - and _)."
    " Save it again from the board."
)


def saved_twice(name: str) -> str:
    """Another phone saved the very hand this one sends: "Bob saved this same hand a moment
    ago." (empty `name`: the reader's own account, on another phone)."""
    if not name:
        return "This same hand was saved on your other phone a moment ago."
    return f"{name} saved this same hand a moment ago."


def key_used(number: int) -> str:
    """A Save sent again under the key of a hand it stored, with another hand in it."""
    return (
        f"This phone already saved hand {number} with other cards and tricks, so this one was "
        "not saved. If it was played too, save it below as the next hand."
    )


def resent(number: int, now: str) -> str:
    """A hand sent again under the key it was stored with, since changed or undone: never
    stored again."""
    if now == "undone":
        return f"Hand {number} was saved, then undone, so it was not saved again."
    if now == "changed":
        return f"Hand {number} was saved, then changed, so it was not saved again."
    return ""


def money(cents: int, currency: str = "USD") -> str:
    """Cents as players say them: "$1.70", "−$0.40", or "1.70 CHF" for a label without a
    symbol."""
    before, after = money_parts(currency)
    sign = MINUS if cents < 0 else ""
    return f"{sign}{before}{rules.format_money(abs(cents))}{after}"


def money_parts(currency: str) -> tuple[str, str]:
    """What stands before and after an amount of `currency` (`money`): ("$", ""), or
    ("", " CHF") for a label without a symbol. The phone puts its amounts between them."""
    symbol = SYMBOLS.get(currency)
    return (symbol, "") if symbol else ("", f" {currency}")


def if_ended(payments: list[rules.Payment], currency: str) -> str:
    """What a match would pay were it to end now (`rules.payout_if_ended`), one line a
    winner: "If it ended now: Ann pays $2.10, Cat $3.40 → Bob"; empty where it pays nothing."""
    if not payments:
        return ""
    by_payee: dict[str, list[str]] = {}
    for p in payments:
        owed = by_payee.setdefault(p.payee, [])
        verb = " pays" if not owed else ""
        owed.append(f"{p.payer}{verb} {money(p.cents, currency)}")
    lines = [", ".join(owed) + f" → {payee}" for payee, owed in by_payee.items()]
    return "If it ended now: " + "; ".join(lines)


def signed_money(cents: int, currency: str = "USD") -> str:
    """Money won or lost: "+$1.70", "−$0.40", "$0.00"."""
    return ("+" if cents > 0 else "") + money(cents, currency)


def gain_or_loss(n: int) -> str:
    """The class that colours an amount won or lost."""
    return "gain" if n > 0 else "loss" if n < 0 else ""


def clock(t: datetime) -> str:
    """A local time as the app says it everywhere: "8:40 p.m." (as Django's "g:i a")."""
    return f"{t.hour % 12 or 12}:{t:%M} {'a.m.' if t.hour < 12 else 'p.m.'}"


def day_and_clock(t: datetime) -> str:
    """ "Nov 28, 8:40 p.m." """
    return f"{t:%b} {t.day}, {clock(t)}"


def date_and_clock(t: datetime) -> str:
    """ "Nov 28 2026, 8:40 p.m." (as Django's "M j Y, g:i a")."""
    return f"{t:%b} {t.day} {t.year}, {clock(t)}"


def suit(name: str) -> str:
    """One card's suit: "♣ club"."""
    return f"{SUIT_SYMBOLS[name]} {name[:-1]}"


def suit_label(name: str) -> str:
    """A suit as a choice of one names it: "♣ Clubs"."""
    return f"{SUIT_SYMBOLS[name]} {name.title()}"


# Who won the match, for one winner and for several (the phone puts in {names} too).
WINNERS = {"one": "{names} wins", "many": "{names} share the win"}


def winners(names: Iterable[str]) -> str:
    """Who won the match: "Cat wins", "Ann and Bob share the win"."""
    names = list(names)
    return WINNERS["one" if len(names) == 1 else "many"].format(names=rules.join_names(names))


def won_by(how: str | None) -> str:
    """How the match was won (`MatchState.won_by`): "shot the moon", "took all five tricks",
    "reached zero"."""
    if how == rules.MOON:
        return "shot the moon"
    return "took all five tricks" if how == rules.SWEEP else "reached zero"


def plural(n: int, one: str, many: str = "") -> str:
    """ "1 hand", "3 hands": `n` and the word for it (`many` where it is not `one` and "s")."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def card_meta(hands: int, winners: Sequence[str] | None = None, dealer: str | None = None) -> str:
    """A match card's line: "Ann & Bob won · 12 hands", or "3 hands · Cat deals next"."""
    count = plural(hands, "hand")
    if winners:
        return f"{' & '.join(winners)} won · {count}"
    return f"{count} · {dealer} deals next"


def tricks_given(left: int, tricks: int, blank: bool) -> str:
    """How far a hand's tricks have been given, beside their rows: "3 of 5 left to give",
    "all 5 given", "1 trick too many"."""
    if left < 0:
        return f"{plural(-left, 'trick')} too many"
    if left == 0 and not blank:
        return f"all {tricks} given"
    return f"{left} of {tricks} left to give"


# Where a loser in the worked example of the stakes ends up.
EXAMPLE_SCORE, EXAMPLE_SHORT = 7, 2


def rules_in_words(
    ruleset: rules.Ruleset, stakes: rules.Stakes, preset: str | None = None
) -> list[tuple[str, str]]:
    """Every rule of a match, a sentence or two each, from its ruleset and stakes (never
    written per preset), saying only what is true of them: (what the rule is about, the
    rule). `preset` names the written rules the match started from, for what they leave to
    the house (`rules.Preset.left_open`)."""
    r = ruleset
    seats = [str(n) for n in r.players]
    seats_said = seats[0] if len(seats) == 1 else ", ".join(seats[:-1]) + " or " + seats[-1]
    redeal = ", a redeal included" if r.all_pass == rules.REDEAL else ""
    # Counted up (§7 `count_up`), every score below is said as the board shows it: the points
    # taken toward the start, a penalty taking points away.
    up, start = r.count_up, r.starting_score
    count = (
        f"start at 0 and count up to {start}"
        if up
        else f"start at {start} and count down toward zero"
    )
    out = [
        (
            "The table",
            f"{seats_said} players, each for themselves, {count}. Every hand has five tricks, "
            f"and the deal passes to the left after each one{redeal}.",
        ),
        ("The deal", _deal(r)),
        (
            "The first dealer",
            "The table picks who deals first: by a cut (each player cuts the deck and the "
            "lowest card deals), by dealing cards face up round the table until one is a Jack "
            "(whoever gets the first Jack deals), or simply by choosing.",
        ),
    ]
    if r.auto_trump:
        turned = f"A turned {suit(r.auto_trump)} is trump at once: nobody bids and nobody may "
        if r.auto_trump_dealer_needs is None:
            turned += "drop out. There is no maker: every player needs 1 trick."
        else:
            turned += (
                "drop out. The dealer picks it up and is the maker, needing "
                f"{plural(r.auto_trump_dealer_needs, 'trick')}; everyone else needs 1."
            )
        out.append((f"A turned {r.auto_trump[:-1]}", turned))
    else:
        out.append(("Trump", "No suit is trump by itself: every upcard is bid on."))
    other = "On any other upcard, a" if r.auto_trump else "A"
    if r.bidding == rules.ORDER_UP:
        making = (
            f"{other} player orders up the upcard's suit, or in a second round names another suit "
            "(never the one turned down), and is the maker: they need "
            f"{plural(r.maker_needs, 'trick')}."
        )
    else:
        making = (
            f"{'On any other upcard, e' if r.auto_trump else 'E'}ach player bids once how many "
            f"tricks they will take ({r.min_bid} to 5); the "
            "highest bidder is the maker, names any suit as trump and needs their bid."
        )
    out.append(("Making trump", making))
    if r.bidding == rules.TRICK_BIDDING:
        out.append(
            (
                "The card swap",
                "Once trump is named, each player who stays in may throw away cards and be "
                "dealt as many new ones from the widow, in turn from the dealer's left. The "
                "score keeper records no cards: only who stayed in and their tricks.",
            )
        )
    if r.all_pass == rules.NO_TRUMP_HAND:
        passing = (
            "The hand is played with no trump and no maker, and nobody may drop out; "
            "it is scored like any other."
        )
    else:
        passing = "Nothing is played or scored: the cards are dealt again by the next dealer."
    out.append(("When everybody passes", passing))
    drop = (
        "Once trump is made, anyone but the maker may drop out: their score does not change. "
        "If everyone else drops, the maker takes all five tricks."
    )
    if r.no_drop_at_or_below is not None:
        if up:
            drop += f" A player at {start - r.no_drop_at_or_below} or above must play."
        else:
            drop += f" A player at {r.no_drop_at_or_below} or below must play."
    out.append(("Dropping out", drop))
    sign, counted = ("−", "nothing for") if up else ("+", "nothing off for")
    if r.set_penalty is None:
        maker = (
            "There is no set: a maker who falls short counts their tricks like everyone else "
            f"(and with no trick gets {sign}{r.zero_trick_penalty})."
        )
    else:
        maker = (
            "A maker who takes fewer tricks than they need is set: "
            f"{sign}{plural(r.set_penalty, 'point')}, and {counted} the tricks they took."
        )
    tricks = "adds their tricks to" if up else "takes their tricks off"
    scoring = (
        f"Everyone who played {tricks} their score. "
        f"{maker} Anyone else who played and took no trick gets "
        f"{sign}{plural(r.zero_trick_penalty, 'point')}."
    )
    if r.cap_at_start:
        floor = "below 0" if up else f"above {start}"
        scoring += f" A penalty never takes a score {floor}: it stops there."
    known = rules.PRESETS.get(preset or "")
    if known and "set_penalty" in known.left_open:
        scoring += (
            f" The written rules of {known.label} name no penalty for a set: "
            f"{'no set' if r.set_penalty is None else f'+{r.set_penalty}'} is the house's choice."
        )
    out.append(("Scoring", scoring))
    if r.sweep_wins:
        alone = (
            "even a maker whom everyone else left alone"
            if r.lone_maker_sweeps
            else "but not a maker who took them only because everyone else dropped"
        )
        sweep = f"Taking all five tricks wins the match at once, alone: {alone}. "
    else:
        five = "five more" if up else "five off"
        sweep = f"Taking all five tricks is just {five}: it does not end the match. "
    best, line = ("highest", f"at {start} or above") if up else ("lowest", "at or below zero")
    ties = {
        "lowest": f"the {best} score wins, and players tied on it share the win.",
        "share": f"every player {line} shares the win.",
        "play_on": (
            f"the {best} score wins if one player holds it alone; if several share it, play "
            f"goes on until after some hand one player alone is {best}."
        ),
    }[r.ties]
    moon = (
        "A maker on the board (who has taken a trick or fallen short this match) may shoot "
        "the moon (with a bid of 5 where tricks are bid): taking all five wins the match at "
        "once; missing it is a set that counts as two hands fallen short. "
        if r.moon
        else ""
    )
    out.append(
        (
            "The end",
            f"{moon}{sweep}Otherwise the match ends once a score is {line}: {ties}",
        )
    )
    out.append(("Stakes", stakes_in_words(stakes, r)))
    return out


def _deal(r: rules.Ruleset) -> str:
    """The deck, the widow and the upcard (docs/rules.md §1): the 24-card deck for three
    players as for four."""
    three = " (with three players too)" if 3 in r.players else ""
    bigger = {
        5: "five players add the 8s (28 cards)",
        6: "six players add the 7s and 8s (32 cards)",
    }
    said = " and ".join(bigger[n] for n in (5, 6) if n in r.players)
    more = f" {said[:1].upper()}{said[1:]}, so that everyone still gets five cards." if said else ""
    return (
        f"Each player is dealt five cards from the 24-card Euchre deck, 9 to Ace{three}.{more} "
        "The cards left over are the widow (the kitty): nobody plays them, so all five "
        "tricks go to the players. Its top card is turned up: the upcard."
    )


def stakes_in_words(stakes: rules.Stakes, ruleset: rules.Ruleset) -> str:
    """What each loser pays, with a worked example (§6)."""
    if not stakes:
        return "Played for no money."
    c = stakes.currency
    terms, working = [], []
    if stakes.per_game:
        terms.append(f"{money(stakes.per_game, c)} a game")
        working.append(money(stakes.per_game, c))
    if stakes.per_point:
        left = (
            f"they are short of {ruleset.starting_score}" if ruleset.count_up else "they have left"
        )
        terms.append(f"{money(stakes.per_point, c)} for each point {left}")
        working.append(f"{EXAMPLE_SCORE} × {money(stakes.per_point, c)}")
    if stakes.per_set:
        short = (
            "played and took no trick"
            if ruleset.set_penalty is None
            else "fell short (set as maker, or played and took no trick)"
        )
        terms.append(f"{money(stakes.per_set, c)} for each hand they {short}")
        working.append(f"{EXAMPLE_SHORT} × {money(stakes.per_set, c)}")
    total = money(rules.owes(stakes, EXAMPLE_SCORE, EXAMPLE_SHORT), c)
    # "Fell short" only where a stake counts it: elsewhere it changes nothing a loser pays.
    short = ""
    if stakes.per_set:
        counted = "took no trick" if ruleset.set_penalty is None else "fell short"
        short = f" who {counted} {EXAMPLE_SHORT} times"
    sums = f"{' + '.join(working)} = " if len(working) > 1 else ""
    at = f"left at {EXAMPLE_SCORE}"
    if ruleset.count_up:
        start = ruleset.starting_score
        at = f"at {start - EXAMPLE_SCORE} ({EXAMPLE_SCORE} short of {start})"
    example = f"For example, a loser {at}{short} pays {sums}{total}."
    return (
        f"Each loser pays the winner {', '.join(terms)}; with several winners it is split "
        f"between them. {example}"
    )


def match_title(label: str, preset_start: int, start: int | None) -> str:
    """A match's title as its house rules have it: a preset's label, with the starting score
    the table chose where it differs ("3 players to 8" for "3 players to 15" started at 8,
    "Standard to 15")."""
    if start is None or start == preset_start:
        return label
    named = str(preset_start)
    if named in label.split():
        return " ".join(str(start) if word == named else word for word in label.split())
    return f"{label} to {start}"


def table_name(username: str, most: int) -> str:
    """What a new account's own group is called until its owner says otherwise: "Ann's
    table", at most `most` characters."""
    tail = "'s table"
    owner = username[:1].upper() + username[1 : most - len(tail)]
    return owner + tail


def number(v: int) -> str:
    """A score or a value on the y axis, with a real minus sign: "−5"."""
    return f"−{-v}" if v < 0 else str(v)


def signed(n: int) -> str:
    """A change of score with a real minus sign: "+5", "−3", "0"."""
    return f"+{n}" if n > 0 else number(n)


def stakes_text(stakes: rules.Stakes) -> str:
    """ "$1.00 a game, $0.10 a point", or "no stakes"."""
    parts = [
        f"{money(getattr(stakes, k), stakes.currency)} {word}"
        for k, word in (("per_game", "a game"), ("per_point", "a point"), ("per_set", "a set"))
        if getattr(stakes, k)
    ]
    return ", ".join(parts) if parts else "no stakes"


def owes_words(stakes: rules.Stakes, score: int, short: int) -> str:
    """What a loser pays, term by term of docs/rules.md §6: "$1.00 a game + 33 points × $0.10"."""
    c = stakes.currency
    terms = []
    if stakes.per_game:
        terms.append(f"{money(stakes.per_game, c)} a game")
    if stakes.per_point:
        points = max(0, score)
        terms.append(f"{points} point{'s' if points != 1 else ''} × {money(stakes.per_point, c)}")
    if stakes.per_set:
        terms.append(f"{short} hand{'s' if short != 1 else ''} short × {money(stakes.per_set, c)}")
    return " + ".join(terms)


def change_shown(ruleset: rules.Ruleset, change: int) -> int:
    """A change of score as the table sees it: with `count_up`, points earned (a trick is +1,
    a penalty −5); else as the engine counts, down (§7)."""
    return -change if ruleset.count_up else change


# The hand form's next question (rules.HandShape.next_question) in words, for the form and the
# phone alike; the phone puts in {maker}, {bid} and {n}.
QUESTIONS = {
    "maker": "Who made trump? Tap their name, or All pass.",
    "bid": "How many tricks did {maker} bid?",
    "moon_bid": rules.MOON_BID,
    "blank": "Tap how many tricks {names} took.",
    "over": f"That is {{n}} tricks already; a hand has {rules.TRICKS}.",
    "total": rules.TRICKS_TOTAL.replace("{tricks}", str(rules.TRICKS)),
}


def question(asked: tuple[str, ...]) -> str:
    """A question of `next_question` in words: "How many tricks did Bob bid?"."""
    kind, *parts = asked
    values = {"maker": "", "bid": "", "n": "", "names": ""}
    if kind in ("bid", "moon_bid"):
        values |= {"maker": parts[0], "bid": parts[1] if kind == "moon_bid" else ""}
    elif kind == "blank":
        values["names"] = rules.join_names(parts)
    elif kind in ("over", "total"):
        values["n"] = parts[0]
    return QUESTIONS[kind].format(**values)


# A hand in a few words, its pieces: here for the hands list, and for the phone's twin of it
# (rules.js `inWords`, the hands kept on the phone), which fills in the same {names}.
HAND_WORDS = {
    "turned": "{suit} turned",
    "redeal": "{turned} · all passed: redeal",
    "no_trump": "{turned} · all passed: no trump",
    "moon_made": " · {maker} shot the moon",
    "moon_missed": " · {maker} shot the moon and missed",
    "dealer_must": "{maker} (dealer) must take {needs}",
    "all_play": "all play",
    "automatic": "{turned} · {made}{moon}",
    "bid": "{maker} bid {bid} in {trump}",
    "ordered_up": "{maker} ordered up",
    "named": "{maker} named {trump}",
    "out": " · {names} out",
    "made": "{turned} · {made}{moon}{out}",
}


def hand_in_words(result: rules.HandResult) -> str:
    """A hand in a few words: "♥ turned · Bob ordered up · Cat out"."""
    w = HAND_WORDS
    hand, shape = result.hand, result.shape
    turned = w["turned"].format(suit=SUIT_SYMBOLS[hand.upcard])
    if hand.passed:
        return w["redeal"].format(turned=turned)
    if hand.trump == rules.NO_TRUMP:
        return w["no_trump"].format(turned=turned)
    moon = ""
    if result.moon:
        moon = w["moon_made" if result.moon_made else "moon_missed"].format(maker=result.moon)
    if shape.automatic:
        made = w["all_play"]
        if shape.maker:
            made = w["dealer_must"].format(maker=shape.maker, needs=shape.needs)
        return w["automatic"].format(turned=turned, made=made, moon=moon)
    assert hand.trump is not None  # the engine refuses a hand made without trump
    trump = SUIT_SYMBOLS[hand.trump]
    if hand.bid is not None:
        made = w["bid"].format(maker=hand.maker, bid=hand.bid, trump=trump)
    elif hand.trump == hand.upcard:
        made = w["ordered_up"].format(maker=hand.maker)
    else:
        made = w["named"].format(maker=hand.maker, trump=trump)
    out = w["out"].format(names=", ".join(hand.dropped)) if hand.dropped else ""
    return w["made"].format(turned=turned, made=made, moon=moon, out=out)


# Plain words for the house-rules choices.
CHOICE_WORDS = {
    "auto_trump": [(s, suit_label(s)) for s in rules.SUITS] + [("null", "None")],
    "bidding": [(rules.ORDER_UP, "Order up"), (rules.TRICK_BIDDING, "Bid tricks")],
    "all_pass": [(rules.NO_TRUMP_HAND, "Play with no trump"), (rules.REDEAL, "Redeal")],
    "ties": [
        ("lowest", "Lowest score wins"),
        ("share", "All at or below 0 share"),
        ("play_on", "Play on until one is lowest"),
    ],
    "players": [
        ("3", "3"),
        ("4", "4"),
        ("5", "5"),
        ("6", "6"),
        ("3,4", "3 or 4"),
        ("3,4,5,6", "3 to 6"),
    ],
    "auto_trump_dealer_needs": [("null", "No maker: all need 1")]
    + [(str(n), f"Dealer makes it, needs {n}") for n in range(1, rules.TRICKS + 1)],
    "no_drop_at_or_below": [("null", "Anyone may drop")]
    + [(str(n), f"{n} or below must play") for n in range(0, 21)],
    # docs/rules.md §4: a table may play without sets; the maker then just counts tricks.
    "set_penalty": [(str(n), f"+{n}") for n in range(0, 26)] + [("null", "Just counts tricks")],
    "sweep_wins": [("true", "Yes"), ("false", "No")],
    "lone_maker_sweeps": [("true", "Yes"), ("false", "No")],
    "cap_at_start": [("true", "Yes"), ("false", "No")],
    "moon": [("true", "Yes"), ("false", "No")],
    "count_up": [("true", "Yes"), ("false", "No")],
}
OPTION_LABELS = {
    "starting_score": "Starting score",
    "players": "Players",
    "auto_trump": "Suit that is trump when turned",
    "auto_trump_dealer_needs": "When that suit is turned",
    "bidding": "Making trump",
    "maker_needs": "Tricks a maker needs",
    "min_bid": "Lowest bid",
    "all_pass": "When everybody passes",
    "no_drop_at_or_below": "Low scores must play",
    "set_penalty": "A maker who falls short",
    "zero_trick_penalty": "Points for taking no trick",
    "sweep_wins": "All five tricks wins the match",
    "lone_maker_sweeps": "…even for a maker everyone left alone",
    "ties": "Several at or below 0",
    "cap_at_start": "Penalties stop at the starting score",
    "moon": "A maker may shoot the moon",
    "count_up": "Show scores counting up",
}


def option_text(name: str, value: object) -> str:
    """An option's value as its house-rules field writes it."""
    if value is None:
        return "null"
    if name == "players":
        return ",".join(str(n) for n in cast("list[int]", value))  # a list of seat counts
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def house_rules_words(preset: str, ruleset: rules.Ruleset) -> list[str]:
    """The table's changes to a preset, as the house-rules form words them."""
    return [
        f"{OPTION_LABELS[name]}: {_option_words(name, value)}"
        for name, value in rules.ruleset_overrides(preset, ruleset).items()
    ]


def _option_words(name: str, value: object) -> str:
    if name == "set_penalty" and value is not None:
        return f"+{value}"  # as the form's choices word it, even beyond them
    text = option_text(name, value)
    return dict(CHOICE_WORDS.get(name, [])).get(text, text)


# What a phone says of the hands it keeps while the score keeper can't be reached (issue 35):
# static/js/offline.js puts `{n}` and `{winners}` in; the sentences stay here.
OUTBOX_WORDS = {
    "waiting_one": "1 hand not saved yet — it will be sent when the connection is back",
    "waiting": "{n} hands not saved yet — they will be sent when the connection is back",
    "sending_one": "Sending 1 hand…",
    "sending": "Sending {n} hands…",
    "saved": "All hands saved",
    "mark_sending": "sending",
    "mark_kept": "kept on this phone",
    "signin_one": "Sign in again to send 1 kept hand",
    "signin": "Sign in again to send {n} kept hands",
    "problem_one": (
        "1 hand is kept on this phone: the score keeper didn't take it yet. Trying again…"
    ),
    "problem": (
        "{n} hands are kept on this phone: the score keeper didn't take them yet. Trying again…"
    ),
    "incomplete": "The hand isn't complete yet.",
    "not_kept": "This hand was not kept on this phone ({why}). It is still here: tap Save again.",
    "offline": "Offline — hands are kept on this phone",
    "to_confirm": "{winners} — to be confirmed when the hands are saved",
    "confirm_throw_away": "Throw away hand {n}? It was never saved, and it will be gone.",
    "undo": "Throw away hand {n}",
    "hand_now": "Hand {n}",
    "stopped": "Hand {n} was not saved: the score keeper says why below. The hands after it wait.",
    "conflict": (
        "Hand {n} was saved on another phone meanwhile: choose below. The hands after it wait."
    ),
}

# The money at a match's end, in the board's result and, while hands wait, on the phone
# (static/js/offline.js, under OUTBOX_WORDS["to_confirm"]): `{amount}` is `money`'s.
RESULT_WORDS = {
    "payments": "Who pays whom",
    "pays": "{payer} pays {payee} {amount}",
    "nobody_owes": "Nobody owes anything.",
}
