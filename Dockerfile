# One multi-stage image recipe for the four services: docker build --build-arg SERVICE=auth .
# Build stage: the whole workspace with dev dependencies, compiled once.
FROM node:24-bookworm-slim AS build
ARG SERVICE
# Said at once, before minutes of building: which image this is.
RUN case "$SERVICE" in gateway|auth|notifier|desktop) ;; \
      *) echo "docker build needs --build-arg SERVICE=<gateway|auth|notifier|desktop> (got '${SERVICE}'), e.g. docker build --build-arg SERVICE=auth . ; docker compose up --build passes it for you" >&2; exit 1 ;; \
    esac
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.build.json ./
COPY libs/shared/package.json libs/shared/
COPY libs/mongo-standin/package.json libs/mongo-standin/
COPY libs/client/package.json libs/client/
COPY services/gateway/package.json services/gateway/
COPY services/auth/package.json services/auth/
COPY services/notifier/package.json services/notifier/
COPY services/desktop/package.json services/desktop/
COPY apps/web/package.json apps/web/
RUN npm ci --ignore-scripts
COPY libs libs
COPY services services
COPY apps/web apps/web
COPY openapi/openapi.yaml openapi/
COPY scripts/client-types.mjs scripts/
# The pages' client types from the contract, then the hosted pages too (a few kilobytes of static
# files, served by the gateway from apps/web/dist).
RUN node scripts/client-types.mjs \
 && npx tsc -b tsconfig.build.json \
 && npm run build --workspace @acct/web \
 && rm -rf libs/*/node_modules services/*/node_modules \
 && find libs services -name '*.tsbuildinfo' -delete

# Runtime stage: production dependencies of one service, its compiled code, a non-root user.
FROM node:24-bookworm-slim AS runtime
ARG SERVICE
# A V8 heap budget under the container's memory limit (docker-compose.yml): without one V8 sizes the
# heap from the host and lets garbage pile up to 4× the live heap between major collections.
ENV NODE_ENV=production SERVICE=${SERVICE} NODE_OPTIONS=--max-old-space-size=256
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/shared/package.json libs/shared/
COPY libs/mongo-standin/package.json libs/mongo-standin/
COPY services/gateway/package.json services/gateway/
COPY services/auth/package.json services/auth/
COPY services/notifier/package.json services/notifier/
COPY services/desktop/package.json services/desktop/
COPY scripts/prune-deps.mjs scripts/
# npm ci installs every workspace's dependencies whatever --workspace says: keep this service's only.
RUN npm ci --omit=dev --workspace services/${SERVICE} \
 && node scripts/prune-deps.mjs services/${SERVICE} \
 && rm -rf scripts \
 && npm cache clean --force
COPY --from=build /app/libs/shared libs/shared
COPY --from=build /app/services/${SERVICE} services/${SERVICE}
COPY --from=build /app/apps/web/dist apps/web/dist
USER node
CMD ["sh", "-c", "exec node --enable-source-maps services/${SERVICE}/dist/start.js"]
