"""Shared fixtures and set-up of the test suite."""
