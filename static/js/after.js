// After the night (#44): copy a payee's free line, and share a night's picture and words.
// Fetched by static/js/app.js with the first tap on Share or Copy, which it then hands on.
globalThis.BuckAfter = true;

// Copy (data-copy): the clipboard where the page may write it (HTTPS, localhost), else the
// old way through a selected text area (a phone on plain http on the home Wi-Fi).
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // refused: the old way below
    }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

function said(button, words) {
  const before = button.dataset.label || button.textContent;
  button.dataset.label = before;
  button.textContent = words;
  setTimeout(() => (button.textContent = before), 2000);
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("[data-copy]");
  if (!button) return;
  said(button, (await copyText(button.dataset.copy)) ? "Copied" : "Select it and copy");
});

// Share (data-share, the URL of the picture; data-text, the words): the phone's share sheet
// with the picture as a file where it takes files; else the picture downloads and the words
// are copied.
document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("[data-share]");
  if (!button) return;
  event.preventDefault();
  let text = button.dataset.text || "";
  const status = document.getElementById(button.dataset.status || "");
  const tell = (words) => {
    if (status) status.textContent = words;
  };
  let file = null;
  try {
    const [answer, words] = await Promise.all([
      fetch(button.dataset.share, { credentials: "same-origin" }),
      button.dataset.textUrl ? fetch(button.dataset.textUrl, { credentials: "same-origin" }) : null,
    ]);
    if (!answer.ok || (words && !words.ok)) throw new Error(String(answer.status));
    if (words) text = await words.text();
    const blob = await answer.blob();
    file = new File([blob], button.dataset.filename || "buck-euchre.png", { type: "image/png" });
  } catch {
    tell("The picture could not be made just now: try again in a moment.");
    return;
  }
  const data = { files: [file], text, title: button.dataset.title || "Buck Euchre" };
  if (navigator.share && (!navigator.canShare || navigator.canShare(data))) {
    try {
      await navigator.share(data);
      tell("Shared.");
    } catch (error) {
      if (error && error.name === "AbortError") tell("");
      else tell("The phone would not share it: the picture and the words are below to use.");
    }
    return;
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(file);
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  const copied = await copyText(text);
  tell(
    copied
      ? "The picture is downloading, and the words are copied: paste them in the chat."
      : `The picture is downloading. The words for the chat: ${text}`,
  );
});
