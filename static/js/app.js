// The little the pages need beyond htmx. Everything works without it; it only makes taps
// faster and failures visible.

// Trick steppers count on the phone itself, so quick taps are never lost while the server
// checks the hand; the change event then asks the server (htmx) for the rules' verdict.
// Without JavaScript the same buttons post their step and the server counts instead.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button.step");
  if (!button || !button.form) return;
  event.preventDefault();
  const [seat, delta] = button.value.split(":");
  const input = button.form.elements["t" + seat];
  const now = parseInt(input.value, 10) || 0;
  input.value = Math.min(5, Math.max(0, now + Number(delta)));
  input.dispatchEvent(new Event("change", { bubbles: true }));
});

// A Save on its way is never cancelled by the next tap, and that tap is not lost: taps on the
// hand form wait until the Save's answer has drawn the next form, then land on it.
let held = null; // taps waiting for a Save's answer, or null when no Save is on its way
let saving = null; // that Save's request (htmx reports its end from wherever it can)
document.addEventListener("htmx:beforeRequest", (event) => {
  if (!event.detail.elt.matches?.("button.save")) return;
  held = [];
  saving = event.detail.xhr;
});
document.addEventListener(
  "click",
  (event) => {
    const input = event.target;
    if (held === null || !input.matches?.("#hand-form input[type=radio], #hand-form input[type=checkbox]")) return;
    event.preventDefault();
    held.push([input.name, input.value]);
  },
  true,
);
function releaseHeld() {
  const taps = held || [];
  held = saving = null;
  for (const [name, value] of taps) {
    const selector = `#hand-form input[name="${CSS.escape(name)}"][value="${CSS.escape(value)}"]`;
    document.querySelector(selector)?.click();
  }
}
document.addEventListener("htmx:afterRequest", (event) => {
  if (held === null || event.detail.xhr !== saving) return;
  // An answer that swapped lands the taps once it has settled; a failed one, at once.
  if (event.detail.successful) held.landing = true;
  else releaseHeld();
});
document.addEventListener("htmx:afterSettle", () => {
  if (held?.landing) releaseHeld();
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
  show.addEventListener("click", () => htmx.trigger(form, "change"));
  box.replaceChildren(`${event.detail.xhr.getResponseHeader("X-Board-Change")} `, show);
});

// A dropped connection or a server error must not look like nothing happened: say so, and
// leave everything typed where it is so that the next tap on Save sends it again.
function showProblem(text) {
  const box = document.getElementById("connection-problem");
  box.textContent = text;
  box.hidden = false;
}
document.addEventListener("htmx:sendError", () =>
  showProblem("Couldn't reach the score keeper. Nothing was lost: check the Wi-Fi and tap again."),
);
document.addEventListener("htmx:responseError", () =>
  showProblem("Something went wrong on the score keeper. Nothing was lost: tap again."),
);
document.addEventListener("htmx:afterRequest", (event) => {
  if (event.detail.successful) document.getElementById("connection-problem").hidden = true;
});

// A message ("Hand 2 changed…") belongs to the page it came with: once the board changes,
// it is old news.
document.addEventListener("htmx:afterSwap", (event) => {
  if (event.detail.target.id === "board") {
    document.querySelectorAll(".messages").forEach((messages) => messages.remove());
  }
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
