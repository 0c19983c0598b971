// The little the pages need beyond htmx. Everything works without it; it only makes taps
// faster, failures visible and the board readable offline.

// A redraw of the hand form is morphed into it (static/vendor/idiomorph): what has the focus
// keeps its value, so nothing being tapped is undone by an answer that was already on its way.
// A greyed name tapped open to say why stays open through an answer already on its way: the
// server never draws one open, so whether it is open is the player's alone.
if (window.Idiomorph) {
  Idiomorph.defaults.ignoreActiveValue = true;
  Idiomorph.defaults.callbacks.beforeAttributeUpdated = (name, element, action) =>
    !(name === "open" && action === "remove" && element instanceof HTMLDetailsElement);
}

function handForm() {
  return document.getElementById("hand-form");
}

// A Save of a new hand goes through the phone's outbox (static/js/offline.js): it answers at
// once, and the next hand's taps land on the next form. A Save of a saved hand's changes goes
// as it is drawn (htmx).

document.addEventListener("htmx:afterSettle", (event) => {
  if (!event.detail.requestConfig?.elt?.matches?.("button.save")) return;
  // A refused Save: its message comes into view and takes the focus (it is an alert, so it
  // is read out too). A saved hand: the board from the top.
  const refused = document.getElementById("refused");
  if (refused) {
    refused.focus({ preventScroll: true });
    refused.scrollIntoView({ block: "center" });
  } else {
    window.scrollTo(0, 0);
  }
});

// Live boards ([data-poll]) ask every few seconds whether the match changed; an unchanged
// match answers 204 and nothing moves. They never ask from a hidden tab, and ask at once when
// it shows again. A changed board never wipes a hand being entered: the phone says so instead,
// and "Show it" checks the hand, which brings the board with the entry kept.
document.addEventListener("htmx:beforeRequest", (event) => {
  if (document.hidden && event.detail.elt.matches?.("[data-poll]")) event.preventDefault();
});
document.addEventListener("visibilitychange", () => {
  if (document.hidden) return;
  document.querySelectorAll("[data-poll]").forEach((elt) => htmx.trigger(elt, "poll-now"));
});
document.addEventListener("htmx:beforeSwap", (event) => {
  const from = event.detail.requestConfig?.elt; // (detail.elt is the swap target here)
  if (!from?.matches?.("[data-poll]") || event.detail.xhr.status !== 200) return;
  const form = document.getElementById("hand-form");
  if (!form?.querySelector("input[name=upcard]:checked")) return;
  event.detail.shouldSwap = false;
  let box = form.querySelector(".saved-elsewhere");
  if (!box) {
    box = document.createElement("p");
    box.className = "notice saved-elsewhere";
    box.setAttribute("role", "status");
    form.prepend(box);
  }
  const show = document.createElement("button");
  show.type = "button";
  show.className = "link";
  show.textContent = "Show it";
  // The server's check, even where the phone answers taps itself: it brings the board.
  show.addEventListener("click", () => htmx.trigger(form, "change", { board: true }));
  box.replaceChildren(`${event.detail.xhr.getResponseHeader("X-Board-Change")} `, show);
});

// --- Typed while an answer is on its way -----------------------------------------------------
// An answer redraws part of a form from what was sent (a new preset's house rules and stakes);
// a box typed in since then keeps what was typed, where the answer gives back what was sent
// (where it brings another value, a seat moved up, the answer's stands).
let typedMeanwhile = [];
document.addEventListener("htmx:beforeSwap", (event) => {
  const sent = event.detail.requestConfig?.formData;
  const boxes = event.detail.target?.querySelectorAll?.("input[type=text], input[type=number]");
  typedMeanwhile = [...(sent && boxes ? boxes : [])]
    .filter((box) => box.id && sent.has(box.name) && sent.get(box.name) !== box.value)
    .map((box) => [box.id, sent.get(box.name), box.value]);
});
document.addEventListener("htmx:afterSwap", () => {
  for (const [id, sent, typed] of typedMeanwhile) {
    const box = document.getElementById(id);
    if (box?.value !== sent) continue;
    box.value = typed;
    box.dispatchEvent(new Event("input", { bubbles: true })); // the dealers follow a name
  }
  typedMeanwhile = [];
});

// --- Sign-up: the table's name suggested from the username ("ann" → "Ann's table"), as the
// box's placeholder: left empty it is that name (Group.home), and what is typed replaces it.
document.addEventListener("input", (event) => {
  const table = document.querySelector(`[data-table-of="${event.target.id}"]`);
  if (!table) return;
  const name = event.target.value.trim();
  table.placeholder = name ? `${name[0].toUpperCase()}${name.slice(1, 52)}'s table` : "";
});

// --- Open sections stay open -----------------------------------------------------------------
// A section a player opened (the rules in full, the house rules) stays open when the part of
// the page around it is drawn again (a preset tapped): the server can't know it was opened.
let openBefore = [];
document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  openBefore = [...(target?.querySelectorAll?.("details[id][open]") ?? [])].map((d) => d.id);
  if (target?.matches?.("details[id][open]")) openBefore.push(target.id);
});
document.addEventListener("htmx:afterSwap", () => {
  for (const id of openBefore) document.getElementById(id)?.setAttribute("open", "");
  openBefore = [];
});

// --- Failures ---------------------------------------------------------------------------------
// A dropped connection or a server error must not look like nothing happened: say so, and
// leave everything tapped where it is, so that tapping again (the same tile, or Save) resends.
let unsent = false; // the last check of the hand form never got its answer

// The page's alert line (a board's copy kept from an older release may have none).
function problemLine() {
  let box = document.getElementById("connection-problem");
  if (!box) {
    box = document.createElement("div");
    box.id = "connection-problem";
    box.className = "problem";
    box.setAttribute("role", "alert");
    box.hidden = true;
    document.querySelector("main")?.before(box);
  }
  return box;
}

function showProblem(text) {
  const box = problemLine();
  box.textContent = text;
  box.hidden = false;
}
document.addEventListener("htmx:sendError", (event) => {
  unsent = true;
  showProblem("Couldn't reach the score keeper. Nothing was lost: check the Wi-Fi and tap again.");
});
document.addEventListener("htmx:responseError", (event) => {
  unsent = true;
  // A refusal in words (a full disk, too many tries …) says what happened; htmx does not swap
  // it in, so what was entered stays on the page.
  const words = event.detail.xhr.getResponseHeader("X-Problem");
  showProblem(words ? decodeURIComponent(words) : "Something went wrong on the score keeper. Nothing was lost: tap again.");
});
document.addEventListener("htmx:afterRequest", (event) => {
  if (!event.detail.successful) return;
  unsent = false;
  problemLine().hidden = true;
});

// Tapping a tile that is already chosen changes nothing, so the browser sends nothing: after a
// failure, send the form again all the same.
document.addEventListener("click", (event) => {
  const input = event.target;
  if (!unsent || !input.matches?.("#hand-form input")) return;
  let changed = false;
  const seen = () => (changed = true);
  input.addEventListener("change", seen, { once: true });
  // The change event, when there is one, comes right after this click's listeners.
  setTimeout(() => {
    input.removeEventListener("change", seen);
    if (!changed) input.dispatchEvent(new Event("change", { bubbles: true }));
  });
});

// A message ("Hand 2 changed…") belongs to the page it came with: once the board changes,
// it is old news.
document.addEventListener("htmx:afterSwap", (event) => {
  // (A swap made by a script, htmx.swap, names no target: the board is the element swapped.)
  if ((event.detail.target ?? event.target)?.id === "board") {
    document.querySelectorAll(".messages").forEach((messages) => messages.remove());
  }
});

// --- During a match: the screen stays awake --------------------------------------------------
// Where the browser allows it (the Screen Wake Lock API, on HTTPS or localhost); elsewhere
// nothing happens.
let wakeLock = null;
async function keepAwake() {
  if (!("wakeLock" in navigator)) return;
  const playing = Boolean(handForm()) && document.visibilityState === "visible";
  try {
    if (playing && !wakeLock) {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => (wakeLock = null));
    } else if (!playing && wakeLock) {
      await wakeLock.release();
      wakeLock = null;
    }
  } catch {
    wakeLock = null; // refused (low battery, hidden tab): the screen simply sleeps
  }
}
document.addEventListener("visibilitychange", keepAwake);
document.addEventListener("htmx:afterSettle", keepAwake);

// --- Offline: the last board seen --------------------------------------------------------------
// Each match page keeps a copy of its board as last seen, its hand form included, so that the
// board opens without a network and hands can still be entered there (static/js/offline.js
// keeps them on the phone until they can be sent). Messages and notices belong to the moment
// and are left out; so is a board showing hands not yet saved (the copy is the server's board).
// The service worker (/sw.js) shows that copy when the network is gone. Browsers allow both
// only on HTTPS and localhost; on a plain http LAN address this stays off.
// A board belongs to the account that drew it: each account's copies are kept apart, and the
// service worker serves only those of the account this phone last saw signed in (the page
// tells it, below), never another's.
const ACCOUNT = document.querySelector("meta[name=account]")?.content || "";
const BOARDS = `boards-${ACCOUNT}`; // the same names as in the service worker
const FILES = "files-v1";

let copying = Promise.resolve();
function keepBoardCopy() {
  if (!window.isSecureContext || !("caches" in window) || document.documentElement.dataset.offline || !ACCOUNT) return;
  if (!document.getElementById("board") || document.documentElement.hasAttribute("data-provisional")) return;
  const copy = document.documentElement.cloneNode(true);
  copy.querySelectorAll(".messages, .notice, .saved-elsewhere").forEach((el) => el.remove());
  const problem = copy.querySelector("#connection-problem");
  problem?.replaceChildren();
  problem?.setAttribute("hidden", "");
  copy.querySelectorAll("#hand-form input:checked").forEach((input) => input.removeAttribute("checked"));
  // When it was seen, put in words only if it is ever shown: a phone's first clock time in
  // words loads its locale's data, a long pause on a slow phone at every board's first load.
  copy.dataset.offline = String(Date.now());
  const html = `<!doctype html>\n${copy.outerHTML}`;
  const headers = { "Content-Type": "text/html; charset=utf-8" };
  // One copy after another, in the order the board was seen (a later one never overwritten by
  // an earlier one that took longer).
  copying = copying.then(() => caches.open(BOARDS)).then((cache) => cache.put(location.pathname, new Response(html, { headers }))).catch(() => {});
  // And what the board needs to work offline: its scripts (the rules' twin among them) and
  // styles, fetched before the service worker looked after this page.
  const files = [...document.querySelectorAll("script[src], link[rel=stylesheet], link[rel=icon]")].map((el) => el.src || el.href);
  // (Those not kept yet: their names change with their content, so one kept is never stale.)
  caches
    .open(FILES)
    .then(async (cache) => cache.addAll((await Promise.all(files.map(async (f) => !(await cache.match(f)) && f))).filter(Boolean)))
    .catch(() => {});
}
document.addEventListener("htmx:afterSettle", (event) => {
  // The board changed, not the entry: copied once the outbox has drawn its hands on it (its
  // own listener, after this one), so that a board showing hands not yet saved is never kept.
  if (!event.target.closest?.("#hand-form")) setTimeout(keepBoardCopy);
});

function showOfflineCopy() {
  // A board with its hand form goes on as it is: hands entered are kept on the phone, and the
  // line above the form says so (static/js/offline.js).
  if (document.getElementById("hand-form")) return;
  const stamp = document.documentElement.dataset.offline;
  // (A copy kept before it held the time itself.)
  const seen = Number.isNaN(Number(stamp)) ? stamp : new Date(Number(stamp)).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
  showProblem(`No connection: this is the board as it was at ${seen}. Nothing can be entered until the score keeper can be reached again.`);
  window.addEventListener("online", () => location.reload());
}

const serviceWorker = document.querySelector("meta[name=service-worker]")?.content;
if (document.documentElement.dataset.offline) {
  showOfflineCopy();
} else {
  // Whose boards the service worker may show on this phone: the account signed in now (none
  // on a page drawn for nobody, the log-in page).
  if (window.isSecureContext && "caches" in window) {
    caches.open("account").then((cache) => cache.put("/account", new Response(ACCOUNT))).catch(() => {});
  }
  keepAwake();
  // The copy waits for a quiet moment: the board shows and answers taps first.
  if ("requestIdleCallback" in window) requestIdleCallback(keepBoardCopy, { timeout: 2000 });
  else setTimeout(keepBoardCopy);
  if (serviceWorker && "serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register(serviceWorker).catch(() => {});
  }
}
// A form that asks first (data-confirm): a new share link cuts off the phones on the old one.
document.addEventListener("submit", (event) => {
  const question = event.target.dataset?.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

// A link to a closed section opens it (a new share link lands on #share, its code in view).
const linked = location.hash && document.getElementById(location.hash.slice(1));
if (linked instanceof HTMLDetailsElement) linked.open = true;

// A form's answer that opens the page at one of its sections ("This is me" lands on how the
// player likes to be paid) says what was done there, not at the page's top, out of sight: its
// message moves to just under that section's heading.
const pageMessage = document.querySelector("main .messages")?.parentElement;
if (linked && pageMessage) {
  const heading = /^H\d$/.test(linked.tagName) ? linked : linked.querySelector(":scope > summary, :scope > h2, :scope > h3");
  if (heading) heading.after(pageMessage);
  else linked.prepend(pageMessage);
  linked.scrollIntoView();
}

// --- A refused form ----------------------------------------------------------------------------
// A form sent as a whole page (without htmx) that the server refuses comes back drawn from the
// top, its words perhaps screens below, and looks as if nothing happened. A form that succeeds
// redirects, so a page drawn with something marked wrong is such an answer: the first thing
// marked wrong on it (a field marked aria-invalid, or an .error line) comes into view and takes
// the focus, so that a screen reader reads it out as well.
function showFirstError() {
  const marked = document.querySelectorAll('main [aria-invalid="true"], main .error');
  const first = [...marked].find((el) => el.getClientRects().length);
  if (!first) return;
  if (!first.matches("input, select, textarea") && !first.hasAttribute("tabindex")) first.tabIndex = -1;
  first.focus({ preventScroll: true });
  first.scrollIntoView({ block: "center" });
}
if (!document.documentElement.dataset.offline) showFirstError();

// Log out: hands kept on this phone and not yet sent are never sent under another account, so
// the log-out asks before it throws them away (the form says the words); then this account's
// boards are forgotten with them. (How many there are is read as the page opens, so that the
// question comes with the tap.)
const logout = document.querySelector("form[data-logout]");
globalThis.BuckOutbox?.count().then((n) => logout && (logout.dataset.count = String(n)), () => {});
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!form.matches("form[data-logout]") || form.dataset.asked) return;
  event.preventDefault();
  const n = Number(form.dataset.count || 0);
  if (n && !window.confirm((n === 1 ? form.dataset.keptOne : form.dataset.kept).replace("{n}", String(n)))) return;
  try {
    await globalThis.BuckOutbox?.forget();
    if ("caches" in window) await caches.delete(BOARDS);
  } catch {
    // Nothing kept could be read: nothing is sent under another account all the same.
  }
  form.dataset.asked = "1";
  form.submit();
});

// New match: the first-dealer choices follow the names as they are typed.
document.addEventListener("input", (event) => {
  if (!event.target.closest(".seats")) return;
  const names = [...document.querySelectorAll(".seats input[type=text]")].map((i) => i.value.trim());
  const any = names.some(Boolean);
  names.forEach((name, i) => {
    const label = document.querySelector(`#dealer input[value="${i}"]`)?.closest("label");
    if (!label) return;
    label.querySelector("span").textContent = name || `Seat ${i + 1}`;
    label.hidden = any && !name;
  });
});

// Past matches: picking a player shows their matches at once (without JavaScript, a Show
// button does it).
document.addEventListener("change", (event) => {
  const form = event.target.closest("form[data-submit-on-change]");
  if (form) form.requestSubmit();
});

// Share and Copy (static/js/after.js) are fetched with the first tap that needs them, so that
// no page's first load carries them; the tap is then handed on to them.
let after = null;
document.addEventListener(
  "click",
  (event) => {
    const button = event.target.closest?.("[data-share], [data-copy]");
    const src = document.querySelector("meta[name=after-script]")?.content;
    if (!button || globalThis.BuckAfter || !src) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    after ??= new Promise((loaded, failed) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = loaded;
      script.onerror = failed;
      document.head.append(script);
    });
    after.then(() => button.click(), () => (after = null));
  },
  true,
);

// A section tapped open before htmx was ready (a quick tap while the page loads: the score
// race under a board) is drawn all the same, as if tapped once htmx listens.
globalThis.htmx?.onLoad((content) => {
  content.querySelectorAll?.("details[open]").forEach((details) => {
    if (details.querySelector("[hx-trigger*='from:closest details']")) details.dispatchEvent(new Event("toggle"));
  });
});
