# syntax=docker/dockerfile:1
# Build stage: install dependencies (pkcs11js compiles against Node headers) with the lock file.
FROM oven/bun:1.4.5-debian AS deps
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
ENV npm_config_nodedir=/usr
RUN npm ci --omit=dev --ignore-scripts=false

# Runtime stage: only the runtime, production dependencies and sources; runs as a non-root user.
FROM oven/bun:1.4.5-debian AS runtime
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/var/lib/facilitator ROLE=all
RUN mkdir -p /var/lib/facilitator && chown -R bun:bun /var/lib/facilitator
USER bun
EXPOSE 3000 4020
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${FACILITATOR_PORT:-4020}/health" >/dev/null || curl -fsS "http://127.0.0.1:${REGISTRY_PORT:-3000}/health" >/dev/null || exit 1
# Bun receives SIGTERM directly (exec form), so graceful shutdown can finish in-flight settlements.
CMD ["bun", "run", "src/main.ts"]
