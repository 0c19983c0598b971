from django.contrib import admin
from django.contrib.auth import views as auth
from django.urls import include, path

from games.views.accounts import PasswordReset, mail_only

handler400 = "games.responses.bad_request"
handler404 = "games.responses.not_found"

urlpatterns = [
    path("admin/", admin.site.urls),
    # django.contrib.auth.urls, with password reset only where the server sends mail.
    path("accounts/login/", auth.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password_change/",
        auth.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/password_reset/",
        mail_only(PasswordReset.as_view()),
        name="password_reset",
    ),
    path(
        "accounts/password_reset/done/",
        mail_only(auth.PasswordResetDoneView.as_view()),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        mail_only(auth.PasswordResetConfirmView.as_view()),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        mail_only(auth.PasswordResetCompleteView.as_view()),
        name="password_reset_complete",
    ),
    path("", include("games.urls")),
]
