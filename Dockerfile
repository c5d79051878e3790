# One image for every Weir role; the role is chosen with --role (see docker-compose.yml).
# The build stage installs with dev dependencies, whose `prepare` compiles TypeScript to dist/;
# the image then keeps only production dependencies and runs the JavaScript with node alone.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --include=optional && npm prune --omit=dev && npm cache clean --force

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["node", "--max-semi-space-size=64", "--heap-growing-percent=100", "dist/main.js"]
CMD ["--role=all"]
