"""Measuring retrieval quality: metrics, labelled data sets, and synthetic vaults for benchmarks."""
