{% load static %}// The score keeper's service worker. When the network is gone it shows the board as last seen
// (the copy that static/js/app.js keeps of each match page, its hand form included) and the
// styles and scripts last fetched (the rules' twin among them), so that a table goes on
// entering hands: static/js/offline.js keeps them on the phone until they can be sent.
// Writes (POST) always go to the network, and fail there when it is gone.
// Each account's boards apart ("boards-" and the account, written by static/js/app.js), and
// the account this phone last saw signed in ("account"): a board is shown only to its own.
const FILES = "files-v1";
const ACCOUNT = "account";
const STATIC_URL = "{% get_static_prefix %}";
const OFFLINE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>No connection · Buck Euchre</title><link rel="stylesheet" href="{% static 'css/app.css' %}"></head>
<body><main id="main"><h1>No connection</h1>
<p>The score keeper can't be reached, and this page was not seen on this phone before.
Check the Wi-Fi and try again.</p></main></body></html>`;

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  // (The boards of "boards-v1", an older release's, were kept for whoever was signed in.)
  const kept = (name) => [FILES, ACCOUNT].includes(name) || (name.startsWith("boards-") && name !== "boards-v1");
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => !kept(n)).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== "GET") {
    // A write goes to the network by the worker's own fetch, so that it meets the same network
    // as every other request of the page (left to the browser, a write from a page under a
    // worker was seen to reach the server from a Chromium told it was offline).
    event.respondWith(fetch(request));
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => lastSeen(url)));
  } else if (url.pathname.startsWith(STATIC_URL)) {
    event.respondWith(fetchAndKeep(request));
  }
});

async function lastSeen(url) {
  const who = await caches.match("/account", { cacheName: ACCOUNT });
  const account = who ? await who.text() : "";
  const copy = account && (await caches.match(url.origin + url.pathname, { cacheName: `boards-${account}` }));
  return copy || new Response(OFFLINE, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

async function fetchAndKeep(request) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const copy = response.clone();
      caches.open(FILES).then((cache) => cache.put(request, copy));
    }
    return response;
  } catch (error) {
    return (await caches.match(request, { cacheName: FILES })) || Response.error();
  }
}
