"""Grading for the MLP-block exercises: probes that run next to the code under test, and the grader."""
