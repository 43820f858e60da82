"""Live servers started for one run, for bench/ and the integration tests (tests/server, tests/browser,
tests/faults). By job:

- `processes`: free ports, waiting for a server to answer, the processes of a process group (found in /proc:
  Linux only, `LINUX` says whether these helpers can run).
- `embedded`: `embedded_server()`, a live server as `make run` starts it (SQLite, the in-memory channel layer,
  the filesystem broker), and `LiveServer`.
- `local_services`: the machine's PostgreSQL and Redis, and `scratch_database()`, a new database dropped at the end.
- `production`: `production_stack()`, what production runs instead, on the machine's PostgreSQL and Redis.
- `api_client`: a registered user's HTTP client of a live server, and waiting for that user's decision.

The stack of ttr_server/stack.py with the means to break it is bench/fault_stack/.
"""
