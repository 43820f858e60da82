"""Django's PostgreSQL backend with a pool whose check costs a round trip only when one is due (ttr_server/dbpool.py).
Settings choose it as the ENGINE when the pool is on."""
