"""How the pages word things: money, suits, the house rules. The rules live in rules.py."""

from django import template
from django.conf import settings

from games import rules, words
from games.charts import number
from games.checks import password_reset_on
from games.words import SUIT_SYMBOLS, gain_or_loss, money, signed_money, suit_label

register = template.Library()


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
    "players": [("3", "3"), ("4", "4"), ("3,4", "3 or 4")],
    "auto_trump_dealer_needs": [("null", "No maker: all need 1")]
    + [(str(n), f"Dealer makes it, needs {n}") for n in range(1, rules.TRICKS + 1)],
    "no_drop_at_or_below": [("null", "Anyone may drop")]
    + [(str(n), f"{n} or below must play") for n in range(0, 21)],
    # docs/rules.md §4: a table may play without sets; the maker then just counts tricks.
    "set_penalty": [(str(n), f"+{n}") for n in range(0, 26)] + [("null", "Just counts tricks")],
    "sweep_wins": [("true", "Yes"), ("false", "No")],
    "lone_maker_sweeps": [("true", "Yes"), ("false", "No")],
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
}


def option_text(name: str, value) -> str:
    """An option's value as its house-rules field writes it."""
    if value is None:
        return "null"
    if name == "players":
        return ",".join(str(n) for n in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def house_rules_words(preset: str, ruleset: rules.Ruleset) -> list[str]:
    """The table's changes to a preset, as the house-rules form words them."""
    return [
        f"{OPTION_LABELS[name]}: {_option_words(name, value)}"
        for name, value in rules.ruleset_overrides(preset, ruleset).items()
    ]


def _option_words(name: str, value) -> str:
    if name == "set_penalty" and value is not None:
        return f"+{value}"  # as the form's choices word it, even beyond them
    text = option_text(name, value)
    return dict(CHOICE_WORDS.get(name, [])).get(text, text)


register.filter("money", money)  # "$1.70", "−$0.40"
register.filter("signed_money", signed_money)  # "+$1.70", "−$0.40"
register.filter("gain_or_loss", gain_or_loss)
register.filter("winners", words.winners)  # "Cat wins", "Ann and Bob share the win"
register.filter("won_by", words.won_by)  # "took all five tricks", "reached zero"


def stakes_text(stakes: rules.Stakes) -> str:
    """ "$1.00 a game, $0.10 a point", or "no stakes"."""
    parts = [
        f"{money(getattr(stakes, k), stakes.currency)} {word}"
        for k, word in (("per_game", "a game"), ("per_point", "a point"), ("per_set", "a set"))
        if getattr(stakes, k)
    ]
    return ", ".join(parts) if parts else "no stakes"


register.filter("minus", number)  # a score with a real minus sign: "7", "−2"


@register.filter
def signed(n: int) -> str:
    """A change of score with a real minus sign: "+5", "−3", "0"."""
    return f"+{n}" if n > 0 else number(n)


@register.simple_tag
def signup_open() -> bool:
    return settings.SIGNUP_OPEN


@register.simple_tag
def password_reset_offered() -> bool:
    return password_reset_on()


@register.filter
def suit_symbol(suit: str) -> str:
    return SUIT_SYMBOLS.get(suit, "")
