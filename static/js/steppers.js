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
