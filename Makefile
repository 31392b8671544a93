# Piceli: the two commands a newcomer needs are `make demo` and `make test`.
GO      ?= go
BIN     := $(CURDIR)/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/pynenc/piceli/internal/cli.Version=$(VERSION) \
           -X github.com/pynenc/piceli/internal/cli.SourceDir=$(CURDIR)
PICELI  := $(BIN)/piceli

.PHONY: all build vet test test-unit test-acceptance bench demo sandbox-bins sandbox-up sandbox-down sandbox-status clean

all: build

## build: compile bin/piceli
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(PICELI) ./cmd/piceli

# The reusable component module and its consumer (docs/packages.md): Go
# modules of their own, which ./... does not reach, so vet and test name them.
MODULES := examples/components/postgres examples/platform

## vet: go vet and gofmt over the product module and MODULES
vet:
	$(GO) vet ./...
	@for m in $(MODULES); do echo "go vet ($$m)"; (cd $$m && $(GO) vet ./...) || exit 1; done
	$(GO) vet -tags piceli_failpoints ./internal/apply/
	$(GO) vet -tags piceli_nofsync ./internal/journal/ ./cmd/piceli-bench/
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## test-unit: tests that need no cluster (cluster tests skip with a reason)
test-unit:
	$(GO) test -short ./...
	@for m in $(MODULES); do (cd $$m && $(GO) test -short ./...) || exit 1; done

## test: build the sandbox if needed, start it, run every test against it, stop it
## (the real node's kubelet and pause too: its tests start sandboxes of their own)
TESTFLAGS ?=
test: vet build
	PICELI_BIN=$(PICELI) scripts/sandbox-bins.sh >/dev/null
	$(GO) test -count=1 -tags piceli_failpoints $(TESTFLAGS) ./internal/apply/
	@for m in $(MODULES); do echo "go test ($$m)"; (cd $$m && $(GO) test -count=1 $(TESTFLAGS) ./...) || exit 1; done
	PICELI_BIN=$(PICELI) scripts/with-sandbox.sh $(GO) test -count=1 -timeout 40m $(TESTFLAGS) ./...

## test-acceptance: every fault-injection scenario against the sandbox, and
## the table; UPDATE=1 rewrites docs/acceptance.md (make test runs the fast half)
UPDATE ?=
test-acceptance: build
	PICELI_ACCEPTANCE=full PICELI_ACCEPTANCE_UPDATE=$(UPDATE) PICELI_BIN=$(PICELI) scripts/with-sandbox.sh \
	  $(GO) test -count=1 -timeout 40m -v $(TESTFLAGS) ./internal/acceptance/

## demo: build, start the sandbox with a real node, deliver, plan, apply and check hello, reach it (KEEP=1 keeps the sandbox)
demo: build
	scripts/demo.sh $(PICELI)

## sandbox-bins: build the control-plane binaries into the cache (minutes, once)
sandbox-bins:
	scripts/sandbox-bins.sh

sandbox-up: build sandbox-bins
	$(PICELI) sandbox up

sandbox-down: build
	$(PICELI) sandbox down

sandbox-status: build
	$(PICELI) sandbox status

clean:
	rm -rf $(BIN)

## bench: Piceli against kubectl, Helm 4 and a client-go floor, the controller at scale and a
## stopped 4,000-ConfigMap run, on a private sandbox; writes docs/performance.md (tens of minutes)
## (BENCHFLAGS=-peers-only: only the 1,000-ConfigMap comparison of the four, printed, nothing written;
## BENCHFLAGS=-only=controller or -only=stop: that controller scenario alone)
BENCHFLAGS ?=
bench: sandbox-bins
	$(GO) build -o $(BIN)/piceli-bench ./cmd/piceli-bench
	$(GO) build -tags piceli_nofsync -o $(BIN)/piceli-bench-nofsync ./cmd/piceli-bench
	$(GO) build -o $(BIN)/piceli-controller ./cmd/piceli-controller
	cd tools/compare && $(GO) build -o $(BIN)/helm helm.sh/helm/v4/cmd/helm
	$(BIN)/piceli-bench -nofsync $(BIN)/piceli-bench-nofsync -helm $(BIN)/helm -controller $(BIN)/piceli-controller -out docs/performance.md $(BENCHFLAGS)
