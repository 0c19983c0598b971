"""System checks that keep a server from starting in a state it must not serve in."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Error, register
from django.core.exceptions import ImproperlyConfigured

GENERATE_KEY = 'e.g. the output of `python -c "import secrets; print(secrets.token_urlsafe(50))"`.'


@register
def secret_key_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[CheckMessage]:
    try:
        key = settings.SECRET_KEY
    except ImproperlyConfigured:  # Django refuses to hand out an empty key
        key = ""
    if not key:
        return [
            Error(
                "SECRET_KEY is not set, and DEBUG=False says this is a server.",
                hint=f"Set SECRET_KEY to a long random string, {GENERATE_KEY}",
                id="games.E001",
            )
        ]
    # Django's own rule for a key that is hard to guess (its check --deploy warns, security.
    # W009); a server that signs every session with a weak one must not start.
    if not settings.DEBUG and (
        len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-")
    ):
        return [
            Error(
                "SECRET_KEY is too easy to guess for a server: it must be at least 50 "
                "characters long, with at least 5 different characters, and not begin with "
                f"'django-insecure-' (this one has {len(key)} characters, "
                f"{len(set(key))} different).",
                hint=f"Set SECRET_KEY to a long random string, {GENERATE_KEY}",
                id="games.E003",
            )
        ]
    return []


def reset_domain() -> str | None:
    """The name a password-reset mail links to: the first host ALLOWED_HOSTS names outright,
    never the Host a request claims (with any host allowed, a stranger could name their own)."""
    return next((h for h in settings.ALLOWED_HOSTS if h != "*" and not h.startswith(".")), None)


def password_reset_on() -> bool:
    """Mail is configured, and a reset link can name this server."""
    return bool(settings.EMAIL_HOST) and reset_domain() is not None


@register
def reset_mail_host_check(
    app_configs: Sequence[AppConfig] | None, **kwargs: Any
) -> list[CheckMessage]:
    if settings.EMAIL_HOST and reset_domain() is None:
        return [
            Error(
                "EMAIL_HOST is set (password reset by mail is on), but ALLOWED_HOSTS names no "
                "host for the reset link.",
                hint="Set ALLOWED_HOSTS to the server's own name, e.g. "
                "ALLOWED_HOSTS=cards.example.org.",
                id="games.E002",
            )
        ]
    return []
