#!/bin/sh
# gomod-check.sh checks every Go module of the tree (each go.mod outside
# third_party/, which is a patched copy kept as upstream ships it): its
# go.mod and go.sum are what `go mod tidy` would write, and, for the modules
# of their own under bench/, that their code and tests build (go vet), as
# the root module's are checked by make vet. A module that is not tidy
# stops `go test` and `go run` there with "updates to go.mod needed": make
# bench's last step (bench/vtcompare) failed that way on a clean clone.
# It reads modules through the module proxy like the rest of make test;
# `go mod tidy -diff` prints the change it would make and changes nothing.
set -eu

cd "$(dirname "$0")/.."
status=0
for mod in $(find . \( -path ./third_party -o -name node_modules -o -name testdata -o -name .git \) -prune \
	-o -name go.mod -print | sort); do
	dir=$(dirname "$mod")
	echo "go mod tidy -diff ($dir)"
	if ! (cd "$dir" && go mod tidy -diff); then
		echo "gomod-check: the module in $dir is not tidy: run 'go mod tidy' there" >&2
		status=1
		continue
	fi
	if [ "$dir" != . ]; then
		echo "go vet ./... ($dir)"
		(cd "$dir" && CGO_ENABLED=0 go vet ./...) || status=1
	fi
done
exit $status
