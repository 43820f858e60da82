// The game page's parts for playing by day: taking a seat with an invitation link (/games/{id}?invite=TOKEN),
// the creator's invitation panel of an open private game (the link to copy, "invite by username"), and the
// rematch of a finished game (offer, accept, who accepted, and off to the new game once it is formed).
//
// A finished game's page reads nothing by itself (game.js); the rematch is read again only when the inbox hears
// something, and every REMATCH_POLL_MS while this person has accepted and waits for the others.
import { h, mount } from "./dom.js";
import { clientSeed, get, post, session, ApiError, errorText } from "./api.js";
import { onNotification } from "./inbox.js";

const REMATCH_POLL_MS = 5000;
const same = (a, b) => (a || "").toLowerCase() === (b || "").toLowerCase();

// ---- invitations
// Takes the seat an invitation link offers: {problem: sentence|null}, or {away: true} when the person must sign in
// first (the sign-in page comes back here). The address loses its token either way: a reload asks nothing twice.
export async function acceptInvite(id) {
  const url = new URL(location.href);
  const token = url.searchParams.get("invite");
  if (!token) return { problem: null };
  if (!session.user) {
    location.href = `/signin?next=${encodeURIComponent(url.pathname + url.search)}`;
    return { away: true };
  }
  url.searchParams.delete("invite");
  history.replaceState(null, "", url);
  try {
    const game = await get(`/games/${id}`);
    if (game.seats.some((s) => same(s.username, session.user))) return { problem: null }; // seated already
    await post(`/games/${id}/join`, { invite: token, client_seed: clientSeed() });
    return { problem: null, joined: true };
  } catch (err) {
    return { problem: inviteProblem(err) };
  }
}

function inviteProblem(err) {
  const code = err instanceof ApiError ? err.body.code : null;
  const words = {
    invite_used: "This invitation has already been used: each link seats one person. Ask the game's creator for a new one.",
    game_full: "This game has no free seat left, so the invitation cannot seat you.",
    not_open: "This game has already started, so the invitation cannot seat you.",
    invite_invalid: "This invitation link is not valid for this game: check that it was copied whole.",
    seat_taken: "The seat this invitation was for is taken.",
  };
  return words[code] || `The invitation did not work: ${errorText(err)}`;
}

// The creator's panel while a private game is open: the link (a copy button) and invitations by username.
// Made once per page and kept across redraws, so a name being typed survives the seats' poll.
export class InvitePanel {
  constructor(gameId) {
    this.gameId = gameId;
    this.link = h("input.invite-link", { type: "text", readonly: true, "aria-label": "Invitation link",
      onfocus: (e) => e.target.select() });
    this.copied = h("span.muted", { role: "status" });
    this.sent = h("p", { role: "status" });
    this.name = h("input", { name: "username", autocomplete: "off", required: true, maxlength: 24 });
    this.element = h("div.invite", {}, h("h3", {}, "Invite players"),
      h("p", {}, "This game is private: it is not listed in the lobby. Anyone with this link takes a seat (once):"),
      h("p.invite-row", {}, this.link, h("button", { type: "button", "data-action": "copy-invite", onclick: () => this.copy() }, "Copy link"), this.copied),
      h("form.invite-user", { onsubmit: (e) => { e.preventDefault(); this.invite(); } },
        h("label", {}, "Invite by username ", this.name), " ", h("button", { type: "submit", "data-action": "invite-user" }, "Invite")),
      this.sent);
  }

  // The token changes once a link is used (the next free seat gets a new one).
  update(token) {
    const url = `${location.origin}/games/${this.gameId}?invite=${encodeURIComponent(token)}`;
    if (this.link.value !== url) this.link.value = url;
    return this.element;
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.link.value);
      this.copied.textContent = " Copied.";
    } catch {
      this.link.select(); // no clipboard here (an insecure page, or refused): selected, for Ctrl+C
      this.copied.textContent = " Selected: press Ctrl+C to copy.";
    }
  }

  async invite() {
    const name = this.name.value.trim();
    this.sent.className = "";
    try {
      const answer = await post(`/games/${this.gameId}/invite`, { username: name });
      this.sent.textContent = `Invitation sent to ${answer.username}: they find it in their inbox.`;
      this.name.value = "";
    } catch (err) {
      this.sent.className = "error";
      this.sent.textContent = errorText(err);
    }
  }
}

// ---- rematch
export class Rematch {
  constructor(game) {
    this.game = game;
    this.element = h("section.rematch", { "aria-live": "polite" });
    this.error = "";
    this.busy = false;
    this.wasReady = Boolean(this.offer?.game); // formed before this page was opened: a link, no jump
    onNotification((n) => { if (n.game === game.id || this.waiting) this.reread(); });
    if (this.waiting) this.poll(); // accepted earlier, and the others have not yet
  }

  get offer() { return this.game.summary.rematch || null; }
  get people() { return this.game.summary.seats.filter((s) => s.username).map((s) => s.username); }
  get accepted() { return this.offer ? [this.offer.by, ...this.offer.accepted_by].filter((v, i, all) => all.findIndex((x) => same(x, v)) === i) : []; }
  get mine() { return this.accepted.some((u) => same(u, session.user)); }
  get waiting() { return Boolean(this.offer && !this.offer.game && this.mine); }

  render() {
    const offer = this.offer;
    const player = this.game.mySeat !== null && this.people.some((u) => same(u, session.user));
    const error = this.error ? h("p.error", { role: "alert" }, this.error) : null;
    if (offer?.game) {
      return mount(this.element, h("h2", {}, "Rematch"), h("p", {}, "The rematch has started: ",
        h("a.rematch-link", { href: `/games/${offer.game}` }, "go to the rematch"), "."));
    }
    if (!player) {
      return offer ? mount(this.element, h("h2", {}, "Rematch"), h("p.muted", {}, `${offer.by} offers a rematch.`)) : mount(this.element);
    }
    const button = (text) => h("button.primary", { type: "button", "data-action": "rematch", disabled: this.busy, onclick: () => this.press() }, text);
    if (!offer) {
      return mount(this.element, h("h2", {}, "Rematch"), h("p", {}, "Play again: same map, same seats and bots, the next player begins."),
        button("Offer a rematch"), error);
    }
    const missing = this.people.filter((u) => !this.accepted.some((a) => same(a, u)));
    return mount(this.element, h("h2", {}, "Rematch"),
      h("p", {}, same(offer.by, session.user) ? "You offered a rematch." : `${offer.by} offers a rematch.`),
      h("p.accepted", { "data-accepted": this.accepted.join(",") }, `Accepted by: ${this.accepted.join(", ")}.`),
      missing.length ? h("p.muted", {}, `Waiting for: ${missing.map((u) => (same(u, session.user) ? "you" : u)).join(", ")}.`) : null,
      this.mine ? null : button("Accept the rematch"), error);
  }

  async press() {
    this.busy = true;
    this.error = "";
    this.render();
    try {
      const answer = await post(`/games/${this.game.id}/rematch`);
      this.game.summary.rematch = answer.offer;
      if (answer.offer.game) return this.go(answer.offer.game);
      this.poll();
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.busy = false;
    }
    this.render();
  }

  async reread() {
    try {
      this.game.summary = await get(`/games/${this.game.id}`);
    } catch { return; }
    if (this.offer?.game && !this.wasReady && this.mine) return this.go(this.offer.game);
    this.render();
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (!this.waiting) return;
      if (!document.hidden) await this.reread();
      this.poll();
    }, REMATCH_POLL_MS);
  }

  go(id) {
    mount(this.element, h("h2", {}, "Rematch"), h("p", { role: "status" }, "The rematch is ready: opening it…"));
    location.href = `/games/${id}`;
  }
}
