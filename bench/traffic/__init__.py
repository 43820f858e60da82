"""Scripted traffic against live web processes, and the checks run on what it received: for bench/load.py and
the fault-injection suite (bench/fault_stack/scenario.py).

Pure client side: it talks to the servers over HTTP (httpx) and the game WebSocket (websockets' sync client) only,
as docs/API.md describes them, and imports nothing of the server (no Django, nothing of games/ or ttr_server/).
By job:

- `client`: the client of the public API: `Http` (requests over several base URLs with the retries below),
  `register_users`, the game socket's address and how it is opened.
- `recorder`: `Recorder`, a thread-safe store of everything every client received (HTTP bodies and socket
  messages, each with the receiving user, its seat or None for a spectator, and the game), latencies by path
  (`"http"`: POST /moves, `"socket"`: a socket `move` to its `move_result`, `"read"`: every other request), every
  HTTP status seen, every 5xx with its URL and body, every move a client was told succeeded (game, seat, expected
  seq, seq returned), anomalies (answers the contract forbids, e.g. a socket push out of seq order, a legal move
  refused) and counters (transport errors, reconnects, close codes, socket results).
- `play`: `play_games(urls, games, ...)` creates `games` ranked games round-robin over the base URLs, seats
  scripted people (registered users: some playing over HTTP, some over the game's socket, some games watched by a
  spectator) and bots, and plays them to the end: each game is done when it is finished and `/score` answers 200.
  Returns one `records.GameRecord` a game. Its actors: `table.Table` (a game's setup and end), `viewer.Viewer`
  (someone at a game, with the game's socket), `people.Person` and `people.Spectator`.
- `checks`: `check_games(url, records, recorder)`, the problems found (empty: all good): each finished game's
  `/verify`, its `/audit` log (seqs 1..N, the hash chain's links, one `game_ended`, one `game_scored`), every
  acknowledged move at its seq in the log, every recorded 5xx and anomaly; and, through `received`, every event
  received matching the log and a scan for hidden information (`hidden`) in everything received before the game
  ended, against what the log says (`truth`).
- `figures`: `summary(recorder)`: moves by path, latency percentiles by path, status counts, 5xx count.

How the clients run: a bounded pool of driver threads (`threads`), each an event loop over the games given to it
(game i goes to thread i % threads) and their actors: one per game (it creates the game, seats everyone, starts
it, then waits for its score) and one per person. An actor's step does its blocking calls (HTTP requests, a
socket move and its result) and says when it wants to run again; sockets are read without blocking between
steps (websockets' sync client reads each open connection in a thread of its own and buffers: one thread a
socket, as the client's own keepalive pings are off; the server's pings are answered by that reader; 200 games
of up to 5 seats ran on 32 driver threads and ~290 socket threads at about 0.2 of a core). A person who
decides sleeps uniform(`think`) before moving; HTTP players poll `/state` (backing off while nothing changes) and
read `/events` now and then; socket players read pushed `events` and ask `/legal-moves` when an event may have
given them the decision (and every few seconds whatever happened), and reconnect when their socket drops (to the
next URL, then `resync`). Every request is retried on another URL after a connection error or a 502/503/504
(honouring `Retry-After` up to 2 s); a 409 `stale_seq` just means re-reading. Users come from a small pool
(registration is throttled per process and slow on purpose), reused across games.
"""
