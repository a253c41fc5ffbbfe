# syntax=docker/dockerfile:1
#
# The soulgraph image: the `soulgraph` CLI and its processes (migrate, workers,
# scheduler) and the API (node --heap-growing-percent=200 bin/run.js api/server/server.ts, as
# docker-compose.yml runs it), all as JavaScript compiled in a build stage (`npm run build`
# needs typescript, a dev dependency): the image holds dist/ and no dev dependency. bin/'s
# launchers run dist/ because it was built from the same sources (build/compiled-sources.js);
# tsx stays a runtime dependency for the fallback.
#
#   docker build -t soulgraph .
#   docker run --rm soulgraph node bin/soulgraph.js --help
#
# Used by docker-compose.yml. CLICKHOUSE_URL and REDIS_URL must be set: without them a
# process would try to start a local ClickHouse/Redis, and the image has neither.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# --ignore-scripts: the prepare script (the build) needs the sources, copied next.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app

# Dependencies first, so that a source change does not reinstall them.
COPY package.json package-lock.json ./
# --ignore-scripts: no prepare (the build ran in the build stage, with typescript).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# The sources: bin/, build/, shared/, pipeline/, api/, tsconfig*.json (.dockerignore lists exactly
# these). One `COPY .` rather than one COPY per folder, because a COPY of a folder that
# does not exist fails the build (git keeps no empty folders, and api/ may be empty).
# The files stay owned by root: the service only reads them.
COPY . .
COPY --from=build /app/dist ./dist

USER node

# Workers finish their current job on SIGTERM (docker stop); docker-compose.yml gives
# them 60 s for it.
STOPSIGNAL SIGTERM
CMD ["node", "bin/soulgraph.js", "workers"]
