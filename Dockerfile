# The Domain Index release: one image for every role (serve, sync, migrate, mcp and the
# operator commands), chosen by its command: `docker run IMAGE serve`, `... sync`, ...
# Build: docker build --build-arg VERSION=... --build-arg REVISION=$(git rev-parse HEAD) -t domain-index .
# (RELEASING.md). The runtime stage holds the bundled JavaScript (no TypeScript compiled at
# start) and the production dependencies only.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS pnpm
RUN npm install --global --no-fund --no-audit pnpm@10.34.9 \
 && pnpm config set --global store-dir /pnpm-store

# Every dependency the lockfile names, fetched once into the store: this layer is reused until
# the lockfile changes.
FROM pnpm AS fetch
WORKDIR /src
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches patches
RUN pnpm fetch --frozen-lockfile

# The workspace installed (its postinstall builds the contract and the client), then the release
# directory assembled in /app by apps/cli/scripts/release.ts, as the systemd units' is: the
# bundle, and the production dependencies of the CLI and the workspace packages it uses (no dev
# dependency, no tooling), hoisted in the workspace's layout, with the migrations and the RDAP
# bootstrap shipped; it checks that the driver's patch is in.
FROM fetch AS build
COPY . .
RUN pnpm install --offline --frozen-lockfile \
 && pnpm --filter @domain-index/cli run release /app

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=""
ARG REVISION=""
ARG SOURCE=""
LABEL org.opencontainers.image.title="Domain Index" \
      org.opencontainers.image.description="A REST API over domain names listed for sale on marketplaces: serve, sync, migrate, mcp" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
# tini is PID 1: it passes SIGTERM on to Node and reaps what exits.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*
COPY --from=build /app /app
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    ADMIN_HOST=0.0.0.0 \
    ADMIN_PORT=9464 \
    LOG_FORMAT=json
USER node
EXPOSE 3000 9464
# Readiness on the admin listener, which serve and sync both open (mcp and the one-shot
# commands have none: run them with --no-healthcheck, as compose.yaml does). Node's fetch: the
# image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.ADMIN_PORT || 9464) + '/readyz', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# serve and sync stop gracefully on SIGTERM within SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS
# (5 s + 10 s by default): give the container more than that (docker stop -t 20,
# compose's stop_grace_period: 20s); Docker's default of 10 s would cut the drain short.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/apps/cli/dist/domain-index.js"]
CMD ["serve"]
