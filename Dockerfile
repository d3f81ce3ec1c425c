# syntax=docker/dockerfile:1
# Yardmaster: multi-stage build, production dependencies only, non-root, health check on /healthz.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles its native addon when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
# `npm run release` passes them (docs/operations.md, "Releases"); a plain `docker build` gets these.
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/example/yardmaster
LABEL org.opencontainers.image.title="Yardmaster" \
      org.opencontainers.image.description="Chat-ops for merge queues: a GitHub App and a Slack app" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=sqlite:/data/yardmaster.db
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# What the app asks GitHub and Slack for: the setup check (npm run doctor, /mq doctor) reads them.
COPY --chown=node:node app.yml slack-manifest.yml ./
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/index.js"]
