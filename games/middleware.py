import io
import logging
from collections.abc import Callable
from typing import IO, cast

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.db import DatabaseError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import resolve_url
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django_htmx.http import HttpResponseClientRedirect

from games.access import HtmxRequest
from games.models import Group, Match
from games.responses import GONE, cant_save, import_limits, not_found, refuse

logger = logging.getLogger(__name__)


class HtmxLoginMiddleware:
    """When a session runs out mid-match, an htmx request must go to the log-in page as a
    whole page, not have the log-in form swapped into the scoreboard."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HtmxRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            request.htmx
            and response.status_code == 302
            and response["Location"].startswith(resolve_url(settings.LOGIN_URL))
        ):
            return HttpResponseClientRedirect(response["Location"])
        return response


class PrivatePagesMiddleware:
    """Every page is someone's scores or carries a CSRF token: no shared cache or back-button
    copy may keep it. A response that chose its own caching (the web app manifest) keeps it;
    static files never get here (WhiteNoise answers them first)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not response.has_header("Cache-Control"):
            patch_cache_control(response, private=True, no_store=True)
        return response


class WrongMethodMiddleware:
    """The address a form sends to, opened as a page (a bookmark, a link shared from the
    address bar), would be Django's blank 405: a page in words instead, with the way back."""

    WORDS = (
        "This address takes what a form of the score keeper sends; it has no page of its own. "
        "Nothing was changed."
    )

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        # Django's own 405 (HttpResponseNotAllowed) is a plain response, with a body to ask.
        if response.status_code != 405 or cast(HttpResponse, response).content:
            return response
        refused: HttpResponse = refuse(request, 405, self.WORDS)
        refused["Allow"] = response["Allow"]
        return refused


class HealthMiddleware:
    """/healthz: 200 "ok" once the database answers a query, 503 otherwise, for a monitor or
    a proxy's health check. It answers before the host and HTTPS checks, so that a check on
    http://127.0.0.1:8000/healthz needs neither the server's name nor TLS."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path_info != "/healthz":
            return self.get_response(request)
        try:
            Match.objects.exists()
        except DatabaseError:
            logger.exception("The health check found the database unreachable")
            response = HttpResponse("database unreachable\n", status=503)
        else:
            response = HttpResponse("ok\n")
        response["Content-Type"] = "text/plain; charset=utf-8"
        response["Cache-Control"] = "no-store"
        return response


def _content_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0  # Django reads no body then


def _read_at_most(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = stream.read(min(left, 64 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class BodyLimitMiddleware:
    """A request body over its URL's limit is refused (413) before a byte of it is read: by
    its Content-Length, or, sent in chunks, once the limit is read (into memory: the limit is
    small). A body in another charset than UTF-8 is refused too (400): every browser sends
    UTF-8, and Django's parsers would otherwise read it in any codec Python knows."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        importing = request.path_info == reverse("games:match_import")
        limit = settings.MAX_IMPORT_SIZE if importing else settings.MAX_FORM_SIZE
        if _content_length(request) > limit:
            return self._too_large(request, importing)
        if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            body = _read_at_most(request.META["wsgi.input"], limit + 1)
            if len(body) > limit:
                return self._too_large(request, importing)
            # Django reads a body by its Content-Length (none was sent): give it one.
            request.META["CONTENT_LENGTH"] = str(len(body))
            # (The stubs type the stream BinaryIO; Django's own WSGIRequest keeps a LimitedStream.)
            request._stream = LimitedStream(io.BytesIO(body), len(body))  # type: ignore[assignment]
        # WSGIRequest and ASGIRequest always set content_params; the stubs type a bare HttpRequest.
        charset = request.content_params.get("charset", "").strip().lower()  # type: ignore[union-attr]
        if request.method not in ("GET", "HEAD", "OPTIONS") and (charset or "utf-8") != "utf-8":
            words = "The score keeper reads forms sent in UTF-8 only, as browsers send them."
            refused: HttpResponse = refuse(request, 400, f"{words} Nothing was saved.")
            return refused
        return self.get_response(request)

    @staticmethod
    def _too_large(request: HttpRequest, importing: bool) -> HttpResponse:
        if importing:
            words = (
                f"That is more than one import takes: {import_limits()}. Nothing was "
                "imported: import the files a few at a time."
            )
        else:
            words = (
                "That is more than any form of the score keeper sends (at most "
                f"{settings.MAX_FORM_SIZE // 1000} KB). Nothing was saved."
            )
        refused: HttpResponse = refuse(request, 413, words)
        return refused


class DatabaseTroubleMiddleware:
    """503 in words when the database can't answer: locked past its time-out, a full disk,
    the server gone. A write's transaction rolled back, so nothing is half-saved."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        # A bare DatabaseError is SQLite's "file is not a database" (a corrupt file); its
        # subclasses (IntegrityError, DataError …) are bugs, and stay 500s.
        if isinstance(exception, OperationalError) or type(exception) is DatabaseError:
            logger.error("The database can't answer: %s", exception, exc_info=exception)
            return cant_save(request)
        return None


class NotFoundInWordsMiddleware:
    """What a view finds gone answers 404 in words, under DEBUG too: a form sent to a group
    or a match deleted on another phone before the view found it says so, and a page whose
    match or group went while it was drawn (`Match.DoesNotExist`, `Group.DoesNotExist` from
    a query after the first) is not found rather than a 500. Any other `DoesNotExist` is a
    bug, and stays a 500 with its traceback."""

    GONE = (Match.DoesNotExist, Group.DoesNotExist)

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, (Http404, *self.GONE)):
            return None
        if request.method != "POST":
            return not_found(request, exception)
        # A 404 the app words for a person ("This server sends no mail.") says so; Django's and
        # the access checks' own ("No such page.", "No Group matches …") are for the log.
        said = str(exception) if isinstance(exception, Http404) else ""
        refused: HttpResponse = refuse(
            request, 404, GONE if said.startswith("No ") or not said else said
        )
        return refused
