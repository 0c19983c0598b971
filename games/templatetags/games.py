"""The template tags and filters: the words are games/words.py's, the rules rules.py's."""

import html

from django import template
from django.conf import settings
from django.utils.safestring import SafeData, mark_safe

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
# was a third of a check's time; they keep the names, ids and values of Django's radios. Plain
# strings, each value escaped once (`html.escape`, as Django's escape): format_html's lazy
# checks of every argument were a tenth of a check.
CHECKED = mark_safe(" checked")
INVALID = ' aria-invalid="true"'


@register.simple_tag
def suit_tiles(field, chosen: str | None, required: bool = False):
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
            for i, (suit, _) in enumerate(field.field.choices)
        )
    )


@register.simple_tag
def maker_tiles(field, all_pass: str):
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
            for i, (value, label) in enumerate(field.field.choices)
        )
    )


@register.simple_tag
def trick_chips(field: str, counts, told: int | None):
    """A player's row of trick chips, one radio a count, the count told checked."""
    name = html.escape(field)
    return mark_safe(
        "".join(
            f'<label class="chip"><input type="radio" name="{name}" value="{n}"'
            f"{CHECKED if n == told else ''}><span>{n}</span></label>"
            for n in counts
        )
    )


WINNER = ' class="winner"'


@register.simple_tag
def match_cards(cards: list[dict], export: bool = True):
    """A list's match cards (`cards` from views.common.cards_of), written out as the tiles
    are: drawn by a template, twenty cards were half the cost of a page of them. A card with a
    `group_name` names its group; `export` offers each match's file."""
    e = html.escape

    def group(card: dict) -> str:
        if "group_name" not in card:
            return ""
        return f'    <span class="card-group">{e(card["group_name"])}</span>\n'

    def export_link(card: dict) -> str:
        if not export:
            return ""
        return (
            f'  <a class="card-export" href="{e(card["export_url"])}" download'
            f' aria-label="Export match of {e(card["when"])}">Export</a>\n'
        )

    def scores(card: dict) -> str:
        return "".join(
            f"<span{WINNER if won else ''}>{e(name)} {words.number(score)}</span>"
            for name, score, won in card["scores"]
        )

    return mark_safe(
        "".join(
            f'<li>\n  <a class="match-card" href="{e(c["url"])}">\n'
            f'    <span class="card-title">{e(c["title"])}</span>\n'
            f"{group(c)}"
            f'    <span class="card-scores">{scores(c)}</span>\n'
            f'    <span class="card-meta">{e(c["meta"])}</span>\n  </a>\n'
            f"{export_link(c)}</li>"
            for c in cards
        )
    )


def _cell(value) -> str:
    """A value as a template writes it: escaped, unless it is already safe HTML."""
    return str(value) if isinstance(value, SafeData) else html.escape(str(value))


@register.simple_tag
def table_rows(rows):
    """A table's rows, each a row header and its cells (`(label, value, ...)`), written out:
    a player's statistics are a hundred rows and more, and a template loop over them was the
    most of their page's cost."""
    return mark_safe(
        "".join(
            f'<tr><th scope="row">{_cell(label)}</th>'
            + "".join(f"<td>{_cell(cell)}</td>" for cell in cells)
            + "</tr>"
            for label, *cells in rows
        )
    )
