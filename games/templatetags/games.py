"""The template tags and filters: the words are games/words.py's, the rules rules.py's."""

from django import template
from django.conf import settings

from games import words
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
