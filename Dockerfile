# Multi-stage build: the cgo SQLite driver needs a C toolchain to build, the runtime image only glibc.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/calendar .

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates wget \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 calendar && mkdir /data && chown calendar /data
COPY --from=build /out/calendar /usr/local/bin/calendar
USER calendar
WORKDIR /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD wget -qO- http://127.0.0.1:8080/readyz >/dev/null || exit 1
ENTRYPOINT ["calendar"]
CMD ["serve"]
