# One image for every Weir role; the role is chosen with --role (see docker-compose.yml).
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --include=optional && npm cache clean --force
COPY . .
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["npx", "tsx", "--max-semi-space-size=64", "--heap-growing-percent=100", "main.ts"]
CMD ["--role=all"]
