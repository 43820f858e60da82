"""The production layout on this machine with the means to break it, for the fault suite (tests/faults) and
bench/faults.py, load.py and by_day.py. By job:

- `redis_server`: `RedisServer`, a redis-server of the run's own, killed and started again at will.
- `harness`: `harness()`, the stack of ttr_server/stack.py on that Redis and a scratch PostgreSQL database, and
  `Harness`, its faults (signals, connections cut or refused) and what it logged.
- `scenario`: `run()`, games played (bench/traffic/) while one fault after another is injected, then every
  promise checked (`problems()`).
"""
