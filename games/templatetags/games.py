"""The template tags and filters: the words are games/words.py's, the rules games.rules'."""

import html

from django import template
from django.conf import settings
from django.forms import BoundField
from django.utils.html import escape, format_html, json_script
from django.utils.safestring import SafeString, mark_safe

from games import rules, words
from games.checks import password_reset_on
from games.forms import PASS, HandForm, PreviewLine
from games.models import Match
from games.words import SUIT_SYMBOLS, gain_or_loss, money, signed_money

register = template.Library()


register.filter("money", money)  # "$1.70", "−$0.40"
register.filter("signed_money", signed_money)  # "+$1.70", "−$0.40"
register.filter("gain_or_loss", gain_or_loss)
register.filter("winners", words.winners)  # "Cat wins", "Ann and Bob share the win"
register.filter("won_by", words.won_by)  # "took all five tricks", "reached zero"


@register.simple_tag
def result_words() -> dict[str, str]:
    """The sentences of a match's money at its end (words.RESULT_WORDS), which the phone says
    alike while hands wait."""
    return words.RESULT_WORDS


@register.filter
def pays(payment: rules.Payment, currency: str) -> SafeString:
    """ "<strong>Ann</strong> pays <strong>Bob</strong> <span class="amount">$1.70</span>" """
    return format_html(
        escape(words.RESULT_WORDS["pays"]),
        payer=format_html("<strong>{}</strong>", payment.payer),
        payee=format_html("<strong>{}</strong>", payment.payee),
        amount=format_html('<span class="amount">{}</span>', money(payment.cents, currency)),
    )


register.filter("minus", words.number)  # a score with a real minus sign: "7", "−2"
register.filter("signed", words.signed)  # a change of score: "+5", "−3", "0"


@register.simple_tag
def signup_open() -> bool:
    return settings.SIGNUP_OPEN


@register.simple_tag
def password_reset_offered() -> bool:
    return password_reset_on()


@register.filter
def shown_in(score: int, match: Match) -> int:
    """A score of `match` as its table sees it: counted up where its rules say so."""
    return rules.shown_score(match.ruleset(), score)


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
def hand_rows(form: HandForm, state: rules.MatchState) -> list[dict[str, object]]:
    """The form's rows (HandForm.players), or before the upcard one empty row a seat; each
    says whether its name is greyed among the drops (`locked`: must play, not ticked)."""
    if form.shape is not None:
        return [
            {**row, "locked": row["must_play"] and not row["dropped"]} for row in form.players()
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
        }
        for i, p in enumerate(state.players)
    ]


# The hand form's suit and maker tiles and trick chips (41 radios on a check of a standard
# hand) are written out here, not by partials of match_detail.html: drawn by partials, they
# made pages_bench's "check, 20 hands" 0.38× the minimal view against 0.46× here (21 % costlier,
# SQLite), and with the chips alone kept here still 0.40× against 0.45× (12 %, three runs each
# by turns); all three kept here, 0.45× against 0.46×. They keep the names, ids and values of
# Django's radios. Plain strings, each value escaped once (`html.escape`, as Django's escape):
# format_html's lazy checks of every argument were a tenth of a check.
CHECKED = " checked"
INVALID = ' aria-invalid="true"'


@register.simple_tag
def suit_tiles(field: BoundField, chosen: str | None, required: bool = False) -> SafeString:
    """A suit's tile a radio of `field` (a bound field of suits), `chosen` checked; an upcard's
    are required, and marked invalid while its error shows."""
    attrs = " required" + (INVALID if field.errors else "") if required else ""
    name, auto_id = html.escape(field.html_name), html.escape(field.auto_id)
    return mark_safe(
        "\n".join(
            f'<label class="choice suit-{suit}"><input type="radio" name="{name}" value="{suit}"'
            f' id="{auto_id}_{i}"{attrs}{CHECKED if suit == chosen else ""}><span>'
            f'<b aria-hidden="true">{SUIT_SYMBOLS[suit]}</b><small>{suit.title()}</small>'
            "</span></label>"
            # A bound field of a ChoiceField: the stubs' BoundField knows a Field, without choices.
            for i, (suit, _) in enumerate(field.field.choices)  # type: ignore[attr-defined]
        )
    )


@register.simple_tag
def maker_tiles(field: BoundField, all_pass: str) -> SafeString:
    """A tile a radio of `field` (the seats and "everybody passed"), the one tapped checked;
    what all passing does under the tile for it ("redeal" or "no trump")."""
    invalid = INVALID if field.errors else ""
    chosen = field.value()
    name, auto_id = html.escape(field.html_name), html.escape(field.auto_id)
    passing = f"All pass <small>{'redeal' if all_pass == 'redeal' else 'no trump'}</small>"
    return mark_safe(
        "\n".join(
            f'<label class="choice{" pass" if value == PASS else ""}"><input type="radio"'
            f' name="{name}" value="{html.escape(value)}" id="{auto_id}_{i}"{invalid}'
            f"{CHECKED if value == chosen else ''}><span>"
            + (passing if value == PASS else f'<b class="name">{html.escape(label)}</b>')
            + "</span></label>"
            # A ChoiceField's, as in suit_tiles.
            for i, (value, label) in enumerate(field.field.choices)  # type: ignore[attr-defined]
        )
    )


@register.simple_tag
def trick_chips(field: str, told: int | None, disabled: bool = False) -> SafeString:
    """A player's row of trick chips, one radio a count, the count told checked; `disabled`
    for a row the hand does not ask (drawn for the phone to show, never sent)."""
    name = html.escape(field)
    off = " disabled" if disabled else ""
    return mark_safe(
        "".join(
            f'<label class="chip"><input type="radio" name="{name}" value="{n}"{off}'
            f"{CHECKED if n == told else ''}><span>{n}</span></label>"
            for n in TRICK_COUNTS
        )
    )


@register.simple_tag
def bid_choices(form: HandForm, state: rules.MatchState) -> list[tuple[int, bool]]:
    """Every bid the rules allow, and whether it is the one tapped."""
    chosen = str(form["bid"].value())
    return [(n, str(n) == chosen) for n in range(state.ruleset.min_bid, rules.TRICKS + 1)]


@register.simple_tag
def hint_of(form: HandForm) -> list[str]:
    """What is wrong so far while the hand is checked (the form's hint shows the next
    question, hidden while there is nothing to say: the phone writes the server's words in)."""
    # An ErrorList iterates its messages (its __getitem__), not the ValidationErrors the stubs say.
    return [e for errors in form.errors.values() for e in errors] if form.is_bound else []  # type: ignore[misc]


@register.simple_tag
def bid_count(state: rules.MatchState) -> int:
    return rules.TRICKS + 1 - state.ruleset.min_bid


@register.simple_tag
def preview_of(form: HandForm, state: rules.MatchState) -> dict[str, object]:
    """The changes of score a valid hand would make (HandForm.preview), one line a player,
    and whether they are `shown` (not while the hand is not yet valid: the phone fills the
    numbers in)."""
    shown = form.is_bound and form.shape is not None and form.is_valid()
    changes: list[PreviewLine] = (
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
def auto_note(state: rules.MatchState) -> str:
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


def _must_play_words(state: rules.MatchState) -> dict[str, list[str]]:
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


@register.simple_tag
def twin_data(match: Match, state: rules.MatchState) -> SafeString:
    """The match as the phone's twin of the rules reads it (rules.js's `state`, and its
    `stakes` where it is played for money, else null), and every sentence the hand form or
    the outbox may show, as a data block (`<script type="application/json">`, which the
    page's CSP allows)."""
    most = rules.TRICKS * len(state.players)
    stakes = match.stakes()
    data = {
        "match": match.pk,
        "state": state.data(),
        "stakes": {k: getattr(stakes, k) for k in rules.STAKE_NAMES} if stakes else None,
        "words": {
            "must": _must_play_words(state),
            "left": {n: words.tricks_given(n, rules.TRICKS, True) for n in range(-most, 6)},
            "given": words.tricks_given(0, rules.TRICKS, False),
            # The next question (rules.js nextQuestion), the phone putting in {maker}, {bid},
            # {n} and {names} (joined as rules.join_names joins them: rules.js joinNames).
            "questions": words.QUESTIONS,
            "notes": {"dropped": "out", "set": "set", "no trick": "no trick"},
            "symbols": SUIT_SYMBOLS,
            "hand": words.HAND_WORDS,
            "winners": words.WINNERS,
            "outbox": words.OUTBOX_WORDS,
            "result": words.RESULT_WORDS,
            "currency": words.money_parts(stakes.currency),  # rules.js money
        },
    }
    return json_script(data, "twin-data")
