# syntax=docker/dockerfile:1
#
# The soulgraph image: the `soulgraph` CLI and its processes (migrate, workers,
# scheduler) and the API (node --heap-growing-percent=200 --import tsx api/server/server.ts, as
# docker-compose.yml runs it). TypeScript runs through tsx, which is a runtime dependency, so there is no
# build step and no dev dependency (typescript, vitest) in the image.
#
#   docker build -t soulgraph .
#   docker run --rm soulgraph node bin/soulgraph.js --help
#
# Used by docker-compose.yml. CLICKHOUSE_URL and REDIS_URL must be set: without them a
# process would try to start a local ClickHouse/Redis, and the image has neither.

FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app

# Dependencies first, so that a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The sources: bin/, shared/, pipeline/, api/, tsconfig.json (.dockerignore lists exactly
# these). One `COPY .` rather than one COPY per folder, because a COPY of a folder that
# does not exist fails the build (git keeps no empty folders, and api/ may be empty).
# The files stay owned by root: the service only reads them.
COPY . .

USER node

# Workers finish their current job on SIGTERM (docker stop); docker-compose.yml gives
# them 60 s for it.
STOPSIGNAL SIGTERM
CMD ["node", "bin/soulgraph.js", "workers"]
