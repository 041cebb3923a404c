# One image, three roles (ROLE=all|api|worker). Production runs on DATABASE_URL:
# the image carries neither dev dependencies nor the embedded PostgreSQL binaries
# (an optional dependency, installed by `npm ci` on a developer machine only).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev --omit=optional

FROM node:22-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
# With RECORDING_STORE=fs recordings live under DATA_DIR/recordings: mount a volume there (shared by every
# api replica). With RECORDING_STORE=s3 (docker-compose.yml) nothing needs to be shared.
RUN mkdir -p /data && chown node:node /data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY fixtures ./fixtures
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
