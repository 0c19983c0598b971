from django.urls import path

from games import group_views, ledger_views, record_views, views

app_name = "games"
urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("accounts/", views.account, name="account"),
    path("accounts/delete/", views.account_delete, name="account_delete"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("matches/", views.match_list, name="match_list"),
    path("matches/new/", views.match_create, name="match_create"),
    path("matches/import/", views.match_import, name="match_import"),
    path("matches/export/", views.match_export_all, name="match_export_all"),
    path("matches/<int:pk>/", views.match_detail, name="match_detail"),
    path("matches/<int:pk>/export/", views.match_export, name="match_export"),
    path("matches/<int:pk>/share/", views.match_share, name="match_share"),
    path("s/<str:token>/", views.match_shared, name="match_shared"),
    path("matches/<int:pk>/delete/", views.match_delete, name="match_delete"),
    path("matches/<int:pk>/rematch/", views.match_rematch, name="match_rematch"),
    path("matches/<int:pk>/hands/", views.hand_create, name="hand_create"),
    path("matches/<int:pk>/hands/undo/", views.hand_undo, name="hand_undo"),
    path("matches/<int:pk>/hands/check/", views.hand_check, name="hand_check"),
    path("matches/<int:pk>/hands/<int:number>/", views.hand_edit, name="hand_edit"),
    path("matches/<int:pk>/hands/<int:number>/check/", views.hand_check, name="hand_edit_check"),
    path("matches/<int:pk>/race/", record_views.match_race, name="match_race"),
    path("matches/<int:pk>/night/", record_views.match_move, name="match_move"),
    path("nights/", record_views.night_list, name="night_list"),
    path("nights/<int:pk>/", record_views.night_detail, name="night_detail"),
    path("nights/<int:pk>/paid/", record_views.night_paid, name="night_paid"),
    path("nights/<int:pk>/settle-up.csv", record_views.night_csv, name="night_csv"),
    path("players/<int:pk>/", record_views.player_detail, name="player_detail"),
    path("players/<int:pk>/rename/", record_views.player_rename, name="player_rename"),
    path("players/<int:pk>/merge/", record_views.player_merge, name="player_merge"),
    path("players/<int:pk>/matches.csv", record_views.player_csv, name="player_csv"),
]
urlpatterns += [
    path("matches/<int:pk>/log/", group_views.match_log, name="match_log"),
    path("players/", group_views.player_list, name="player_list"),
    path("groups/", group_views.group_list, name="group_list"),
    path("groups/new/", group_views.group_create, name="group_create"),
    path("groups/<int:pk>/", group_views.group_detail, name="group_detail"),
    path("groups/<int:pk>/rename/", group_views.group_rename, name="group_rename"),
    path("groups/<int:pk>/delete/", group_views.group_delete, name="group_delete"),
    path("groups/<int:pk>/invites/", group_views.invite_create, name="invite_create"),
    path(
        "groups/<int:pk>/invites/<int:invite>/withdraw/",
        group_views.invite_withdraw,
        name="invite_withdraw",
    ),
    path("groups/<int:pk>/members/", group_views.group_members, name="group_members"),
    path("groups/<int:pk>/leave/", group_views.group_leave, name="group_leave"),
    path("groups/<int:pk>/me/", group_views.group_me, name="group_me"),
    path("join/<str:token>/", group_views.join, name="join"),
]
urlpatterns += [
    path("groups/<int:pk>/balances/", ledger_views.balances, name="balances"),
    path("groups/<int:pk>/balances.csv", ledger_views.balances_csv, name="balances_csv"),
    path(
        "groups/<int:pk>/payments/<int:payment>/remove/",
        ledger_views.payment_remove,
        name="payment_remove",
    ),
    path("me/", ledger_views.me, name="me"),
]
