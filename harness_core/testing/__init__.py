"""Scripted model servers and fixtures for testing harnesses offline."""
