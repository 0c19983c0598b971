from django.conf import settings
from django.shortcuts import resolve_url
from django.utils.cache import patch_cache_control
from django_htmx.http import HttpResponseClientRedirect


class HtmxLoginMiddleware:
    """When a session runs out mid-match, an htmx request must go to the log-in page as a
    whole page, not have the log-in form swapped into the scoreboard."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
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

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not response.has_header("Cache-Control"):
            patch_cache_control(response, private=True, no_store=True)
        return response
