from django.conf import settings
from django.shortcuts import resolve_url
from django_htmx.http import HttpResponseClientRedirect


class HtmxLoginMiddleware:
    """When a session runs out mid-match, an htmx request must go to the log-in page as a
    whole page, not have the log-in form swapped into the scoreboard."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        login = resolve_url(settings.LOGIN_URL)
        if request.htmx and response.status_code == 302 and response["Location"].startswith(login):
            return HttpResponseClientRedirect(response["Location"])
        return response
