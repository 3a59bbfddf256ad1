# Atelier: one image for every process of the topology (docs/deployment.md). The command picks the
# process: `atelier migrate | deploy | backend | worker | admin | indexer`. Docker cannot run on the
# development machines: compose.yaml and this file are checked against `npm run topology` by
# test/topology/compose.test.ts, not built in CI.

# ---- build: dependencies with dev tools, contract artifacts, then production dependencies only ----
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci` fails on a lockfile listing other platforms' optional packages (docs/deployment.md).
RUN npm install --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY contracts ./contracts
COPY deployments ./deployments
COPY web ./web
COPY tsconfig.json ./
# solc-js compiles the contracts once here; the runtime reads contracts/out and never compiles.
RUN npx tsx contracts/scripts/build.ts --quiet \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: no compilers, no dev dependencies, a non-root user ----
FROM node:20.20.2-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
# Application files belong to root and are read-only for the process; only /data is writable.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/src ./src
COPY --from=build /app/contracts/out ./contracts/out
COPY --from=build /app/contracts/abi ./contracts/abi
COPY --from=build /app/deployments ./deployments
COPY --from=build /app/web ./web
COPY --from=build /app/tsconfig.json ./tsconfig.json
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 3001 3002 3003
ENTRYPOINT ["node", "bin/atelier.js"]
CMD ["backend"]
