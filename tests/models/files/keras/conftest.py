"""The Keras model files are data for tests/models/test_keras_model_files.py: read by derive, run by that test only."""

collect_ignore_glob = ["*.py"]
