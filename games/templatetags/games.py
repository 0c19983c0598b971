"""The template tags and filters: the words are games/words.py's, the rules rules.py's."""

from django import template
from django.conf import settings
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from games import words
from games.checks import password_reset_on
from games.forms import PASS
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


# The hand form's tiles are written out here rather than by a template loop over them, which
# was a third of a check's time; they keep the names, ids and values of Django's radios.
CHECKED = mark_safe(" checked")


@register.simple_tag
def suit_tiles(field, chosen: str | None, required: bool = False):
    """A suit's tile a radio of `field` (a bound field of suits), `chosen` checked; an upcard's
    are required, and marked invalid while its error shows."""
    attrs = (
        mark_safe(" required" + (' aria-invalid="true"' if field.errors else ""))
        if required
        else ""
    )
    tile = (
        '<label class="choice suit-{0}"><input type="radio" name="{1}" value="{0}" id="{2}_{3}"'
        '{4}{5}><span><b aria-hidden="true">{6}</b><small>{7}</small></span></label>'
    )
    return format_html_join(
        "\n",
        tile,
        (
            (suit, field.html_name, field.auto_id, i, attrs, CHECKED if suit == chosen else "")
            + (SUIT_SYMBOLS[suit], suit.title())
            for i, (suit, _) in enumerate(field.field.choices)
        ),
    )


@register.simple_tag
def maker_tiles(field, all_pass: str):
    """A tile a radio of `field` (the seats and "everybody passed"), the one tapped checked;
    what all passing does under the tile for it ("redeal" or "no trump")."""
    invalid = mark_safe(' aria-invalid="true"') if field.errors else ""
    chosen = field.value()
    passing = format_html(
        "All pass <small>{}</small>", "redeal" if all_pass == "redeal" else "no trump"
    )
    return format_html_join(
        "\n",
        '<label class="choice{}"><input type="radio" name="{}" value="{}" id="{}_{}"{}{}>'
        "<span>{}</span></label>",
        (
            (" pass" if value == PASS else "", field.html_name, value, field.auto_id, i)
            + (invalid, CHECKED if value == chosen else "")
            + (passing if value == PASS else format_html('<b class="name">{}</b>', label),)
            for i, (value, label) in enumerate(field.field.choices)
        ),
    )


@register.simple_tag
def trick_chips(field: str, counts, told: int | None):
    """A player's row of trick chips, one radio a count, the count told checked."""
    name = escape(field)
    return mark_safe(
        "".join(
            f'<label class="chip"><input type="radio" name="{name}" value="{n}"'
            f"{CHECKED if n == told else ''}><span>{n}</span></label>"
            for n in counts
        )
    )
