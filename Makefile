.PHONY: bench fuzz-api

# The benchmark: Easel beside the bare floors and the peers; writes docs/benchmarks.md.
# Settings are environment variables, listed at the top of scripts/bench.
bench:
	./scripts/bench

# The long schema-driven fuzz run over every REST call (schemathesis, see scripts/fuzz-api).
fuzz-api:
	./scripts/fuzz-api long
