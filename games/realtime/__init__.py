"""The live stream of a game over WebSocket (docs/API.md, WebSocket; docs/DESIGN.md, Realtime).

`consumer` serves `/ws/games/{id}/`: a hello with the state, then every event as its viewer may see it, moves
and resyncs. `hub` keeps this process's sockets by game, polls their seqs and renews their presence. `auth`
says who a socket is (`?token=` or the session cookie). `messages` reads what clients send. A commit's notice
(games/store/notify.py) carries only (game, seq); every socket reads its own events from the database.
"""
