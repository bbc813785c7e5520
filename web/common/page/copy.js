// Copying text for the person (a link, a command): to the clipboard, said in the status line;
// where the browser refuses the clipboard, the status line holds the text to copy by hand.

/** Copies `text`, then says `done`. */
export async function copyText(controller, text, done) {
  try {
    await navigator.clipboard.writeText(text);
    controller.say(done);
  } catch {
    controller.say(`Copy this: ${text}`);
  }
}
