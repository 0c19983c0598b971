"""The template tags and filters: the words are games/words.py's, the rules rules.py's."""

import itertools

from django import template
from django.conf import settings
from django.utils.html import json_script

from games import rules, words
from games.checks import password_reset_on
from games.words import SUIT_SYMBOLS, gain_or_loss, money, signed_money

register = template.Library()


register.filter("money", money)  # "$1.70", "−$0.40"
register.filter("signed_money", signed_money)  # "+$1.70", "−$0.40"
register.filter("gain_or_loss", gain_or_loss)
register.filter("winners", words.winners)  # "Cat wins", "Ann and Bob share the win"
register.filter("won_by", words.won_by)  # "took all five tricks", "reached zero"


register.filter("minus", words.number)  # a score with a real minus sign: "7", "−2"
register.filter("signed", words.signed)  # a change of score: "+5", "−3", "0"


@register.simple_tag
def signup_open() -> bool:
    return settings.SIGNUP_OPEN


@register.simple_tag
def password_reset_offered() -> bool:
    return password_reset_on()


@register.filter
def suit_symbol(suit: str) -> str:
    return SUIT_SYMBOLS.get(suit, "")


# --- The hand form with every question drawn (issue 35) ---------------------------------------
# The form draws every question a hand could ask, those its shape does not ask hidden and
# disabled; static/js/offline.js shows, hides and greys them by the shape the phone's twin of
# the rules (static/js/rules.js) computes, so that a tap needs no round trip. The words it
# shows are the server's, all of them written out here in a data block.

TRICK_COUNTS = tuple(range(rules.TRICKS + 1))


@register.simple_tag
def hand_rows(form, state) -> list[dict]:
    """The form's rows (HandForm.players), or before the upcard one empty row a seat; each
    says whether its name is greyed among the drops (`locked`: must play, not ticked), and
    has its trick chips (`chips`: each count, and whether it is the one told)."""
    if form.shape is not None:
        return [
            {
                **row,
                "locked": row["must_play"] and not row["dropped"],
                "chips": [(n, n == row["tricks"]) for n in TRICK_COUNTS],
            }
            for row in form.players()
        ]
    return [
        {
            "seat": i,
            "name": p,
            "field": f"t{i}",
            "dropped": False,
            "plays": False,
            "tricks": None,
            "filled": False,
            "must_play": None,
            "why": None,
            "score": state.shown(p),
            "locked": False,
            "chips": [(n, False) for n in TRICK_COUNTS],
        }
        for i, p in enumerate(state.players)
    ]


@register.simple_tag
def bid_choices(form, state) -> list[tuple[int, bool]]:
    """Every bid the rules allow, and whether it is the one tapped."""
    chosen = str(form["bid"].value())
    return [(n, str(n) == chosen) for n in range(state.ruleset.min_bid, rules.TRICKS + 1)]


@register.simple_tag
def hint_of(form) -> list[str]:
    """What is wrong so far while the hand is checked (the form's hint shows the next
    question, hidden while there is nothing to say: the phone writes the server's words in)."""
    return [e for errors in form.errors.values() for e in errors] if form.is_bound else []


@register.simple_tag
def bid_count(state) -> int:
    return rules.TRICKS + 1 - state.ruleset.min_bid


@register.simple_tag
def preview_of(form, state) -> dict:
    """The changes of score a valid hand would make (HandForm.preview), one line a player,
    and whether they are `shown` (not while the hand is not yet valid: the phone fills the
    numbers in)."""
    shown = form.is_bound and form.shape is not None and form.is_valid()
    changes = (
        form.preview()
        if shown
        else [{"name": p, "change": None, "note": ""} for p in state.players]
    )
    lines = []
    for c in changes:
        change, note = c["change"], c["note"]
        if note == "dropped":
            note_text, change_text = "out", ""
        else:
            note_text = f"{note} " if note and note != "redeal" else ""
            change_text = (
                "" if change is None else words.signed(words.change_shown(state.ruleset, change))
            )
        trend = "" if not change else "up" if change > 0 else "down"
        lines.append({"name": c["name"], "note": note_text, "change": change_text, "trend": trend})
    return {"shown": shown, "lines": lines}


@register.simple_tag
def auto_note(state) -> str:
    """What a turned automatic suit means, where the rules have one: "Clubs are trump. …"."""
    r = state.ruleset
    if r.auto_trump is None:
        return ""
    maker = state.dealer if r.auto_trump_dealer_needs is not None else None
    if maker:
        who = f"{maker} dealt, so {maker} makes it and needs {r.auto_trump_dealer_needs}."
    else:
        who = "No maker: everyone plays and needs a trick."
    return f"{r.auto_trump.title()} are trump. {who} Nobody drops out."


def _must_play_words(state) -> dict:
    """A greyed name's tag and sentence for each reason it may have (rules.MUST_PLAY_WORDS),
    with `{p}`, `{score}`, `{turned}` and `{limit}` for the phone to put in (its scores may be
    provisional ones)."""
    tags = {
        rules.MAKER: "maker",
        rules.LOW_SCORE: "at {score}",
        rules.TURNED: f"turned {state.ruleset.auto_trump}",
        rules.NO_TRUMP_PLAYED: "no trump",
    }
    sentences = dict(rules.MUST_PLAY_WORDS)
    if state.ruleset.count_up:
        sentences[rules.LOW_SCORE] = rules.LOW_SCORE_UP_WORDS
    return {code: [tags[code], text] for code, text in sentences.items()}


def _groups(players) -> list[list[str]]:
    return [
        list(group)
        for k in range(1, len(players) + 1)
        for group in itertools.combinations(players, k)
    ]


@register.simple_tag
def twin_data(match, state):
    """The match as the phone's twin of the rules reads it (rules.js's `state`, `stakes`),
    and every sentence the hand form or the outbox may show, as a data block
    (`<script type="application/json">`, which the page's CSP allows)."""
    players = list(state.players)
    most = rules.TRICKS * len(players)
    stakes = match.stakes()
    data = {
        "match": match.pk,
        "state": {
            "ruleset": state.ruleset.options(),
            "players": players,
            "scores": state.scores,
            "dealer": state.dealer,
            "hands": state.hands,
            "sets": state.sets,
            "winners": list(state.winners),
            "won_by": state.won_by,
        },
        "stakes": {k: getattr(stakes, k) for k in rules.STAKE_NAMES},
        "words": {
            "must": _must_play_words(state),
            "left": {n: words.tricks_given(n, rules.TRICKS, True) for n in range(-most, 6)},
            "given": words.tricks_given(0, rules.TRICKS, False),
            "maker": "Who made trump? Tap their name, or All pass.",
            "bid": {p: f"How many tricks did {p} bid?" for p in players},
            # rules._check_moon's sentence, the bid put in on the phone.
            "moon_bid": {
                p: f"{p} can't shoot the moon on a bid of {{bid}}: the moon is a bid of "
                f"{rules.TRICKS}."
                for p in players
            },
            "blank": {
                "|".join(g): f"Tap how many tricks {rules.join_names(g)} took."
                for g in _groups(players)
            },
            "over": {
                n: f"That is {n} tricks already; a hand has {rules.TRICKS}."
                for n in range(rules.TRICKS + 1, most + 1)
            },
            "total": {
                n: f"The tricks add up to {n}; a hand always has {rules.TRICKS}."
                for n in range(most + 1)
            },
            "notes": {"dropped": "out", "set": "set", "no trick": "no trick"},
            "symbols": SUIT_SYMBOLS,
            "winners": {"|".join(g): words.winners(g) for g in _groups(players)},
            "outbox": words.OUTBOX_WORDS,
        },
    }
    return json_script(data, "twin-data")
