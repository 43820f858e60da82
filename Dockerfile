# Production image: the same code runs as web (uvicorn ASGI), worker (Celery) and beat.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TTR_SECRETS_DIR=/secrets
WORKDIR /app
COPY pyproject.toml README.md ./
COPY ttr_server ttr_server
COPY games games
COPY bots bots
COPY frontend frontend
COPY manage.py ./
COPY scripts/compile_messages.py scripts/
COPY locale locale
RUN pip install --no-cache-dir .
# The mails' translations: each locale/<lang>/LC_MESSAGES/django.po compiled to its .mo (standard library only).
RUN python scripts/compile_messages.py
# Static files (Swagger UI's, the web client's) collected once; WhiteNoise serves them from the web processes.
# (The throwaway secrets this build step makes are removed: none is baked into the image.)
RUN TTR_SECRETS_DIR=/tmp/build-secrets python manage.py collectstatic --noinput && rm -rf /tmp/build-secrets
RUN useradd --create-home ttr && mkdir -p /app/var /metrics /secrets && chown -R ttr /app/var /metrics /secrets \
    && chmod 700 /secrets
USER ttr
EXPOSE 8000
# Every command starts after the site's secrets exist in TTR_SECRETS_DIR (generated once, on the first start): a
# production process refuses to start without them (ttr_server/settings.py).
ENTRYPOINT ["python", "-m", "ttr_server.local_secrets", "--"]
CMD ["uvicorn", "ttr_server.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--lifespan", "off", \
     "--timeout-graceful-shutdown", "20", "--proxy-headers", "--no-server-header", \
     "--ws-per-message-deflate", "false"]
