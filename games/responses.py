"""Refusals in words (400, 403, 404, 429, 503), sent by the views and by the middleware
alike (so they live beside both, not inside the views), and the limits of one import that
they quote."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games import throttles


def import_limits() -> str:
    """What one import takes, in words: the import form and its refusals say it."""
    return (
        f"up to {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files and "
        f"{settings.MAX_IMPORT_HANDS:,} hands at once, "
        f"{settings.MAX_IMPORT_SIZE / 1_000_000:g} MB in all and "
        f"{settings.MAX_UPLOAD_SIZE / 1_000_000:g} MB a file"
    )


CANT_SAVE = "The score keeper can't save right now; nothing was lost. Try again in a moment."
CANT_READ = "The score keeper can't reach its records right now. Try again in a moment."
TOO_MANY_SIGNUPS = (
    "Too many new accounts from this address in the last hour. Try again later, or ask "
    "whoever runs the score keeper to make your account."
)
TOO_MANY_RESETS = (
    "Too many reset mails asked for in the last hour, from this address or for this account. "
    "Check your mail for the ones already sent, or try again later."
)


REFUSED_TITLES = {
    400: "That couldn't be read",
    403: "Nothing was saved",
    404: "Not here any more",
    405: "Not a page to open",
    413: "Too much at once",
    429: "Too many tries",
    503: "Try again in a moment",
}


def refuse(
    request: HttpRequest,
    status: int,
    words: str,
    template: str = "refused.html",
    **context: object,
) -> HttpResponse:
    """A refusal in words: the page says it, and so does the phone when htmx asked (such an
    answer is not swapped in, so what was entered stays; static/js/app.js shows X-Problem)."""
    context = {"words": words, "title": REFUSED_TITLES[status], **context}
    response = render(request, template, context, status=status)
    response["X-Problem"] = quote(words)
    return response


def cant_save(request: HttpRequest) -> HttpResponse:
    """503: the database is locked past its time-out, its disk is full, it is gone. A write
    was rolled back with its transaction."""
    response = refuse(request, 503, CANT_SAVE if request.method == "POST" else CANT_READ)
    response["Retry-After"] = "5"
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400, for what no browser sends: too many files or fields, a host this server is not."""
    if isinstance(exception, TooManyFilesSent):
        words = (
            f"One import takes at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files. Nothing "
            "was imported: import them a few at a time."
        )
    else:
        words = "The score keeper couldn't read that request, so nothing was saved."
    return refuse(request, 400, words)


# A write that meets a deletion on another phone (404, in words: `refuse`).
GROUP_GONE = "This group was deleted on another phone."

GONE = (
    "This match or page is no longer here for you: it was deleted, or you are no longer in "
    "its group."
)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: the page says so; a board left open (its poll) shows the words too, rather than
    "something went wrong", where its match was deleted or its reader removed from the group."""
    response = render(request, "404.html", status=404)
    response["X-Problem"] = quote(GONE)
    return response


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    words = (
        "This page was open too long, or its cookie is gone, so nothing was saved. Reload "
        "the page (your browser may need to allow cookies for this site) and try again."
    )
    return refuse(request, 403, words)


def locked_out(
    request: throttles.AxesRequest,
    original_response: HttpResponse | None = None,
    credentials: Mapping[str, str] | None = None,
) -> HttpResponse:
    """django-axes' answer once an address has had too many wrong passwords, for one account
    or for any: the log-in page again, saying why even the right password is refused."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    if throttles.address_locked(request):
        words = (
            f"Too many wrong passwords from this address: log-ins from it are refused for "
            f"{minutes} minutes. Try again later."
        )
    else:
        words = (
            f"Too many wrong passwords for this account from this address: it is locked here "
            f"for {minutes} minutes. Until then even the right password is refused from here. "
            "Try again later."
        )
    form = AuthenticationForm(request, initial={"username": username[:150]})
    next_url = request.POST.get("next", "")
    return refuse(request, 429, words, "registration/login.html", form=form, next=next_url)
