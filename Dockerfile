# The app image. Without DATABASE_URL it runs embedded Postgres under /data/pg; with it (as in
# docker-compose.yml) it uses that server. Everything else in docs/operations.md.
FROM node:24-bookworm-slim
WORKDIR /app
# Embedded Postgres refuses to run as root and runs as this user; created here so its id stays
# the same across image rebuilds and the files in the /data volume stay its own.
RUN groupadd --system postgres && useradd --system --gid postgres --no-create-home postgres
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The project's own Node 24 (the `node` package), the same one `npm start` uses.
RUN node_modules/.bin/node scripts/build-site.ts
ENV NODE_ENV=production DATA_DIR=/data PORT=3000
EXPOSE 3000
VOLUME /data
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD ["node_modules/.bin/node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/v1/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The supervisor itself, not `npm start`: `docker stop` sends SIGTERM to this process, which
# stops the services and Postgres in order and exits 0 well within Docker's 10 s.
STOPSIGNAL SIGTERM
CMD ["node_modules/.bin/node", "scripts/start.ts"]
