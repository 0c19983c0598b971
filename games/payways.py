"""How a player likes to be paid, and the links that open a payment app with the payee, the
amount and a note filled in (#44 §1): pure Python, no Django import, like words.py.

Each service's public payment link, no account, no API, no key:
- Venmo: https://venmo.com/<user>?txn=pay&amount=3.55&note=... (USD only);
- PayPal.me: https://paypal.me/<name>/3.55EUR (the currencies PayPal takes; no note);
- Cash App: https://cash.app/$<cashtag>/3.55 (USD only; no note).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from urllib.parse import quote

# The services, in the order a page shows their buttons.
SERVICES = ("venmo", "paypal", "cashapp")
LABELS = {"venmo": "Venmo", "paypal": "PayPal", "cashapp": "Cash App"}
# What a name may be on each service, and how long: Venmo user names are 5 to 30 letters,
# digits, hyphens and underscores; PayPal.me names up to 20 letters and digits; $cashtags up
# to 20 letters and digits, with at least one letter.
SHAPES = {
    "venmo": (
        re.compile(r"[A-Za-z0-9_-]+"),
        5,
        30,
        "letters, digits, hyphens (-) and underscores (_)",
    ),
    "paypal": (re.compile(r"[A-Za-z0-9]+"), 1, 20, "letters and digits"),
    "cashapp": (re.compile(r"[A-Za-z0-9]+"), 1, 20, "letters and digits"),
}
EXAMPLES = {"venmo": "ann-lee", "paypal": "annlee", "cashapp": "$annlee"}
# What a player types before a name, as the apps show it: "@ann-lee", "$annlee".
PREFIXES = {"venmo": "@", "paypal": "", "cashapp": "$"}
OTHER_LENGTH = 80
# The currencies Venmo and Cash App take: US dollars only.
USD_ONLY = frozenset({"USD"})
# The currencies PayPal takes, as ISO 4217 codes; of those, the ones without cents.
PAYPAL_CURRENCIES = frozenset(
    ("AUD", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EUR", "GBP", "HKD", "HUF", "ILS")
    + ("JPY", "MXN", "MYR", "NOK", "NZD", "PHP", "PLN", "SEK", "SGD", "THB", "TWD", "USD")
)
WHOLE_UNITS = frozenset({"HUF", "JPY", "TWD"})
_LINK = re.compile(r"(://|^www\.|\.(com|me|app|net|org)\b|/)", re.IGNORECASE)


class PayWayError(ValueError):
    """A way to be paid that the service could not take, in words a player understands."""


def clean_name(service: str, text: str) -> str:
    """The name on `service` as typed ("@Ann-Lee ", "$annlee"), checked and without its
    prefix; empty for none. PayWayError, in words, for what the service would not take."""
    label = LABELS[service]
    text = text.strip()
    if not text:
        return ""
    if _LINK.search(text):
        tail = text.rstrip("/").rpartition("/")[2].lstrip("@$")
        hint = f" (for {text[:60]}, that is {tail})" if tail and "." not in tail else ""
        raise PayWayError(f"Enter only the {label} name{hint}, not a link: the app makes the link.")
    prefix = PREFIXES[service]
    if prefix and text.startswith(prefix):
        text = text[len(prefix) :]
    shape, shortest, longest, allowed = SHAPES[service]
    if len(text) > longest:
        raise PayWayError(f"A {label} name is at most {longest} characters: {len(text)} here.")
    if not shape.fullmatch(text):
        bad = next((c for c in text if not shape.fullmatch(c)), " ")
        shown = "a space" if bad.isspace() else f"“{bad}”"
        raise PayWayError(
            f"A {label} name holds only {allowed}: {shown} can't be in it. "
            f"Such as {EXAMPLES[service]}."
        )
    if len(text) < shortest:
        raise PayWayError(f"A {label} name is at least {shortest} characters.")
    if service == "cashapp" and not any(c.isalpha() for c in text):
        raise PayWayError("A $cashtag has at least one letter.")
    return text


def clean_other(text: str) -> str:
    """The free line ("Zelle: 555-0100"), its spaces tidied; PayWayError if it can't be one."""
    text = " ".join(text.split())
    if len(text) > OTHER_LENGTH:
        raise PayWayError(f"Keep it to {OTHER_LENGTH} characters: {len(text)} here.")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        raise PayWayError("Write it on one line, without control characters.")
    return text


@dataclass(frozen=True)
class Way:
    """A button of a transfer: a link to pay with `service`, or (`service` "other") the
    payee's free line to copy (`text`)."""

    service: str
    label: str
    url: str = ""
    text: str = ""


def amount(cents: int, currency: str) -> str:
    """An amount as the links take it: "3.55"; "300" in a currency without cents."""
    if currency in WHOLE_UNITS:
        return str(cents // 100)
    return f"{cents // 100}.{cents % 100:02d}"


def link(service: str, name: str, cents: int, currency: str, note: str) -> str:
    """The public link that opens `service` to pay `name` `cents` in `currency`; empty where
    the service does not take the currency (or, in one without cents, the amount)."""
    if cents <= 0 or not name:
        return ""
    if service in ("venmo", "cashapp") and currency not in USD_ONLY:
        return ""
    if service == "paypal" and currency not in PAYPAL_CURRENCIES:
        return ""
    if currency in WHOLE_UNITS and cents % 100:
        return ""
    value = amount(cents, currency)
    if service == "venmo":
        return f"https://venmo.com/{quote(name)}?txn=pay&amount={value}&note={quote(note)}"
    if service == "paypal":
        return f"https://paypal.me/{quote(name)}/{value}{currency}"
    return f"https://cash.app/${quote(name)}/{value}"


def ways(names: dict[str, str], other: str, cents: int, currency: str, note: str) -> list[Way]:
    """A payee's buttons for paying `cents` in `currency`: one link a service they gave a
    name on (`names`, by service) that takes the currency, then their free line `other`."""
    out = []
    for service in SERVICES:
        url = link(service, names.get(service, ""), cents, currency, note)
        if url:
            out.append(Way(service, LABELS[service], url=url))
    if other and cents > 0:
        out.append(Way("other", "Other", text=other))
    return out


def note(day: date) -> str:
    """What the payment says: "Buck Euchre, Thu Dec 3", the day of the night it settles."""
    return f"Buck Euchre, {day:%a %b} {day.day}"
