# syntax=docker/dockerfile:1
#
# The sstable-flight image for people with docker. `make image`
# (deploy/image, docs/image.md) builds the same image without a docker
# engine, and is the one we test: this file is kept equivalent to it
# (the same empty base, numeric non-root user, entrypoint, arguments,
# ports and volumes), and deploy/image's TestDockerfileMatchesSpec fails
# when the two drift apart.
#
#   docker build -t sstable-flight .
#   docker buildx build --platform linux/amd64,linux/arm64 -t REGISTRY/sstable-flight .

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS=linux TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no libc in the image), without build paths, build ID or VCS
# stamp: the flags of deploy/image/compile.go.
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o /out/sstable-flight ./cmd/sstable-flight
# The volumes' mount points, owned as deploy/image/layer.go owns them.
RUN mkdir -p /out/root/tmp /out/root/var/lib/cassandra && chmod 1777 /out/root/tmp && \
    chown 65532:65532 /out/root/var/lib/cassandra

FROM scratch
COPY --from=build --chmod=0555 /out/sstable-flight /sstable-flight
COPY --from=build /out/root/ /
COPY --from=build --chown=65532:65532 /out/root/var/lib/cassandra /var/lib/cassandra
USER 65532:65532
WORKDIR /
EXPOSE 8815/tcp 9102/tcp
VOLUME ["/var/lib/cassandra", "/tmp"]
ENTRYPOINT ["/sstable-flight"]
CMD ["--data-dir=/var/lib/cassandra/data", "--listen=:8815", "--admin-listen=:9102"]
