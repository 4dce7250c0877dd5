.PHONY: bench

# The benchmark: Easel beside the bare floors and the peers; writes docs/benchmarks.md.
# Settings are environment variables, listed at the top of scripts/bench.
bench:
	./scripts/bench
