# Ferrum: one image, two roles — `ferrum controller` (the default) and `ferrum runner`.
#
#   docker build --network host --build-arg BASE_IMAGE=node:20-bookworm-slim -t ferrum .
#   docker run -e REDIS_URL=redis://redis:6379 -p 8080:8080 ferrum            # controller
#   docker run -e REDIS_URL=... -v /var/run/docker.sock:/var/run/docker.sock \
#     --group-add "$(stat -c %g /var/run/docker.sock)" ferrum runner
#
# BASE_IMAGE is any image with Node 20.19 or later (package.json's engines; today's node:20-*
# tags are) and npm, for the build stage, laid out like the official node image. Without a
# registry, scripts/build-node-base-image.sh makes one from this machine's own node binary
# (ferrum-test/node-base).
# The build stage installs packages from the npm registry, so where containers have no network
# of their own, build with `--network host`. Where the build cannot reach the registry at all,
# build on the host instead (`npm install && npm run build && npm prune --omit=dev` in a clean
# checkout) and make an image of the runtime stage below alone, copying package.json,
# node_modules and dist from the checkout rather than from the build stage.
#
# The image has no redis-server: give it REDIS_URL (`ferrum start` without one refuses to run).
ARG BASE_IMAGE=node:20-bookworm-slim
# Written by scripts/generate-version.mjs from package.json (test/unit/version.test.ts checks it).
ARG FERRUM_VERSION=0.2.0

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit --no-update-notifier
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs scripts/
COPY bin bin
COPY cli cli
COPY src src
COPY api api
COPY controller controller
COPY runner runner
COPY web web
RUN npm run build && npm prune --omit=dev --no-fund --no-audit

FROM ${BASE_IMAGE}
ARG FERRUM_VERSION
LABEL org.opencontainers.image.title="Ferrum" \
      org.opencontainers.image.description="Self-hosted cloud platform: identity, cache, message queue, worker and functions" \
      org.opencontainers.image.version="${FERRUM_VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
# No PORT here: the controller listens on 8080 and a runner serves its metrics on 8081 unless told
# otherwise, so both roles fit on one host network.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    FERRUM_DATA_DIR=/var/lib/ferrum
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
RUN mkdir -p /var/lib/ferrum && chown 1000:1000 /var/lib/ferrum
USER 1000:1000
EXPOSE 8080 8081
# Both roles answer GET /health: the controller on PORT (8080), a runner (process 1 runs
# `ferrum runner`) on FERRUM_RUNNER_METRICS_PORT, else PORT, else 8081.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const e = process.env; const runner = require('fs').readFileSync('/proc/1/cmdline', 'utf8').split('\\0').includes('runner'); const port = (runner && e.FERRUM_RUNNER_METRICS_PORT) || e.PORT || (runner ? 8081 : 8080); fetch('http://127.0.0.1:' + port + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/bin/ferrum.js"]
CMD ["controller"]
