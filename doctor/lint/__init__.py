"""`lint`: find engine launch commands in shell scripts, Dockerfiles, docker-compose files, Kubernetes
manifests and systemd units, and run the `check` analysis on each (doctor/lint/analyse.py)."""

from doctor.lint.find import expand_paths, launches_in_file
from doctor.lint.site import LaunchSite

__all__ = ["LaunchSite", "expand_paths", "launches_in_file"]
