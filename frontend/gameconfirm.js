// Asking before a move is sent (issue #33): a claim and a station always ask ("Claim Berlin – Wien with 3 red + 1
// locomotive?" Confirm / Cancel), since they pay cards and a tap on a phone can land on the wrong route; with the
// option "confirm every move" on (as on Board Game Arena and Lichess) the other moves ask too: cards drawn, tickets
// drawn and kept, a tunnel paid or given up. The option is off by default.
//
// The option is kept per browser (localStorage, as the chime's switch is), not with the account: the account's
// settings (GET/PATCH /api/me) are typed columns of the account's row, so a new one needs a migration, the API's
// serializers, its schema and its export, much more than a switch of the game page is worth.
//
// The question is the native modal <dialog> (focus moves into it, Escape cancels, focus goes back afterwards), at
// the bottom of the screen so that the route it asks about stays in view on the board above it.
import { h } from "./dom.js";
import { t } from "./i18n.js";

const CONFIRM_KEY = "ttr.confirmEveryMove";

export const confirmAll = () => localStorage.getItem(CONFIRM_KEY) === "on";
export const setConfirmAll = (on) => localStorage.setItem(CONFIRM_KEY, on ? "on" : "off");

// Whether `move` asks first: claims and stations always, the rest with the option on.
export const asksFirst = (move) => move.type === "claim_route" || move.type === "build_station" || confirmAll();

let open = null; // the question on screen, if any: a new one replaces it

// Ask `question`; `onConfirm` runs on Confirm, `onCancel` on Cancel, Escape or a new question.
export function confirmMove(question, onConfirm, onCancel = () => {}) {
  open?.close("replaced");
  let answered = false;
  const answer = (confirmed) => {
    if (answered) return;
    answered = true;
    if (dialog.open) dialog.close();
    dialog.remove();
    if (open === dialog) open = null;
    (confirmed ? onConfirm : onCancel)();
  };
  const dialog = h("dialog.confirm.confirm-move", { "aria-labelledby": "confirm-move-question", onclose: () => answer(false) },
    h("p.question", { id: "confirm-move-question" }, question),
    h("div.dialog-buttons", {},
      h("button", { type: "button", "data-action": "cancel-move", onclick: () => answer(false) }, t("game.cancel")),
      h("button.primary", { type: "button", autofocus: true, "data-action": "confirm-move", onclick: () => answer(true) }, t("game.confirm"))));
  document.body.append(dialog);
  dialog.showModal();
  open = dialog;
  return dialog;
}

// The question on screen closed as a Cancel (the decision it asked about is gone: another move, a new state).
export function dropQuestion() {
  open?.close();
}
