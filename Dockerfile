# syntax=docker/dockerfile:1
#
# One image for both interfaces (ROLE=registry|facilitator|all); docs/container.md explains every
# choice here and the commands to run it. tests/container checks this file's invariants and replays
# its install without a Docker engine.
#
# Base images are pinned by exact tag. For a production build pin their digests too (tags can be
# re-pushed): `docker buildx imagetools inspect oven/bun:1.4.5-debian` prints the digest, then
#   docker build --build-arg BUN_IMAGE=oven/bun:1.4.5-debian@sha256:<digest> \
#                --build-arg NODE_IMAGE=node:24.11.1-bookworm-slim@sha256:<digest> .
ARG BUN_IMAGE=oven/bun:1.4.5-debian
ARG NODE_IMAGE=node:24.11.1-bookworm-slim

# Node and npm, only to install dependencies: npm reads package-lock.json, and node-gyp compiles the
# pkcs11js addon against these exact Node headers. Nothing of this stage reaches the runtime.
FROM ${NODE_IMAGE} AS node

# Install stage on the runtime's own base image, so the addon is compiled against the glibc and
# libstdc++ it is loaded with (pkcs11js is an N-API addon, so Bun loads what Node headers built).
FROM ${BUN_IMAGE} AS deps
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/include/node /usr/local/include/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace packages' manifests, which npm ci needs to link them (node_modules/@x84/* are
# symlinks into packages/, filled with their sources in the runtime stage).
COPY packages/solana-wire/package.json packages/solana-wire/
COPY packages/embedded-ledger/package.json packages/embedded-ledger/
# Production dependencies only: no bun, deno, msw, typescript or the x402 test clients. Of the
# production tree only pkcs11js has an install script (approved in package.json's allowScripts).
# typescript survives --omit=dev as an optional peer of @solana/kit and elysia that the root's
# devDependency satisfies ("devOptional" in the lock); nothing imports it at run time, so it goes.
# The last line proves the addon loads in the runtime that will use it.
ENV npm_config_nodedir=/usr/local
RUN npm ci --omit=dev --no-audit --no-fund \
    && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
    && bun -e 'require("pkcs11js")'

# Runtime: Bun from the official image, production dependencies, sources; non-root (uid 1000).
FROM ${BUN_IMAGE} AS runtime
# true: bundle SoftHSM2 and pkcs11-tool (staging only; docs/container.md). false: the default.
ARG WITH_SOFTHSM=false
# /var/lib/facilitator: DATA_DIR. /opt/pkcs11: where a vendor's PKCS#11 library is mounted
# (FEE_PAYER_PKCS11_MODULE=/opt/pkcs11/<library>.so). /var/lib/softhsm/tokens: the SoftHSM2 token
# store of the staging variant, owned by the service's user because SoftHSM2 silently skips token
# directories it cannot read; its config (directories.tokendir) is made world-readable, since
# Debian ships it 0640 root:softhsm, unreadable by uid 1000.
RUN set -eu; \
    case "$WITH_SOFTHSM" in \
      true) extra="softhsm2 opensc" ;; \
      false) extra="" ;; \
      *) echo "WITH_SOFTHSM must be true or false" >&2; exit 1 ;; \
    esac; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates $extra; \
    rm -rf /var/lib/apt/lists/*; \
    mkdir -p /var/lib/facilitator /opt/pkcs11; \
    chown 1000:1000 /var/lib/facilitator; \
    chmod 0700 /var/lib/facilitator; \
    if [ "$WITH_SOFTHSM" = true ]; then \
      mkdir -p /var/lib/softhsm/tokens /etc/softhsm; \
      chown 1000:1000 /var/lib/softhsm/tokens; \
      chmod 0700 /var/lib/softhsm/tokens; \
      printf 'directories.tokendir = /var/lib/softhsm/tokens/\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n' > /etc/softhsm/softhsm2.conf; \
      chmod 0644 /etc/softhsm/softhsm2.conf; \
    fi
WORKDIR /app
# Owned by root and read-only to the service's user: the code cannot be changed at run time.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY packages ./packages
COPY src ./src
# BUN_RUNTIME_TRANSPILER_CACHE_PATH=0: no transpiler cache on a read-only root filesystem.
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/var/lib/facilitator ROLE=all BUN_RUNTIME_TRANSPILER_CACHE_PATH=0
# Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd (uid 1000 is `bun`).
USER 1000:1000
EXPOSE 3000 4020 9090
# Bun itself asks the interface ROLE serves (the facilitator's port for ROLE=all); no curl in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bun", "-e", "const port = process.env.ROLE === 'registry' ? process.env.REGISTRY_PORT || '3000' : process.env.FACILITATOR_PORT || '4020'; const ok = await fetch('http://127.0.0.1:' + port + '/health/live').then((r) => r.ok, () => false); process.exit(ok ? 0 : 1);"]
# No wrapper script: Bun is PID 1 and receives SIGTERM directly, so graceful shutdown can finish
# in-flight settlements. The tools run the same way: `docker run … bun src/tools/signer-check.ts`.
ENTRYPOINT []
CMD ["bun", "src/main.ts"]
