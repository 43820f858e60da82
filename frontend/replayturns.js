// The replay's steps by turn (replay.js): a game's log cut into each seat's whole turn, as a player counts them.
// A turn ends with its `turn_ended` (two card draws, a tunnel's reveal and its payment, a timed-out decision and the
// bot's move after it: one turn); before the first turn, the deal is a step and so is each seat's choice of its
// first tickets; what follows the last turn (the last round's start is the turn's that started it) is the end.
// Pure: events in, steps out.

// A step: its first and last event's seq, and the seat whose turn it is (null: the deal, the end).
export function turnsOf(events) {
  const turns = [];
  let first = null;
  let playing = false; // a turn has ended: the setup's ticket choices are over
  const close = (last, seat) => {
    if (first === null) return;
    turns.push({ first, last, seat });
    first = null;
  };
  for (const event of events) {
    const seat = event.seat ?? event.data?.seat ?? null;
    if (event.type === "last_round_started" && first === null && turns.length) {
      turns[turns.length - 1].last = event.seq; // told with the turn that started it
      continue;
    }
    if (!playing && event.type === "tickets_kept" && first !== null && turns.length === 0) {
      close(event.seq - 1, null); // the deal, before the first choice of tickets
    }
    if (first === null) first = event.seq;
    if (event.type === "turn_ended") {
      playing = true;
      close(event.seq, seat);
    } else if (!playing && event.type === "tickets_kept") {
      close(event.seq, seat);
    }
  }
  if (first !== null) close(events[events.length - 1].seq, null);
  return turns;
}

// The index of the step that holds event `seq` (the last step for a seq past the end).
export function turnAt(turns, seq) {
  const found = turns.findIndex((turn) => seq <= turn.last);
  return found < 0 ? turns.length - 1 : found;
}
