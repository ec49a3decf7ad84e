"""Tests of the engines behind the Engine interface."""
