from django import template
from django.conf import settings

from games import rules
from games.checks import password_reset_on

register = template.Library()

SYMBOLS = {"USD": "$", "CAD": "$", "AUD": "$", "EUR": "€", "GBP": "£", "$": "$", "€": "€", "£": "£"}


@register.filter
def money(cents: int, currency: str = "USD") -> str:
    """Cents as players say them: "$1.70", or "1.70 CHF" for a label without a symbol."""
    amount = rules.format_money(abs(cents))
    sign = "−" if cents < 0 else ""
    symbol = SYMBOLS.get(currency)
    return f"{sign}{symbol}{amount}" if symbol else f"{sign}{amount} {currency}"


@register.filter
def signed(n: int) -> str:
    """A change of score with a real minus sign: "+5", "−3", "0"."""
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


@register.filter
def get(mapping, key):
    return mapping.get(key)


@register.simple_tag
def signup_open() -> bool:
    return settings.SIGNUP_OPEN


@register.simple_tag
def password_reset_offered() -> bool:
    return password_reset_on()
