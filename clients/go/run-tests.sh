#!/usr/bin/env bash
# `go test` offline against Debian's Go sources (/usr/share/gocode: golang-google-grpc-dev,
# golang-google-protobuf-dev, golang-google-genproto-dev): the module proxy is not
# reachable here, so the module is built GOPATH-style from a temporary GOPATH that links
# this directory in as sluice.dev/clients/go. With a module proxy, `go test ./...` works too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gopath="$(mktemp -d)"
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/sluice.dev/clients"
ln -s "$here" "$gopath/src/sluice.dev/clients/go"
cd "$gopath/src/sluice.dev/clients/go"
GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= go vet ./...
GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= go test -count=1 "$@" ./...
