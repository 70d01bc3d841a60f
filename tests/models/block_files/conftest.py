"""The model files are data for tests/models/test_code_blocks*.py: read by derive, run by those tests only."""

collect_ignore_glob = ["*.py"]
