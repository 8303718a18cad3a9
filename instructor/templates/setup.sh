#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
#
# Base image: Ubuntu 22.04 or later (Configure Autograder > Base Image). torch 2.13.0 has wheels for
# Python 3.10 to 3.14, built for glibc 2.28 or later. Ubuntu's python3 is 3.10 on 22.04 (pip then
# takes Triton 3.8: Triton 3.9 needs Python 3.11) and 3.12 on 24.04. Ubuntu 20.04's python3 is 3.8,
# too old for torch 2.13: on an older image this script stops with the reason instead of building an
# autograder that cannot grade.
set -euo pipefail
# shellcheck source=/dev/null  # the machine's own file, read for its ID and VERSION_ID
. "${OS_RELEASE:-/etc/os-release}"  # OS_RELEASE: another file, to try this check elsewhere
if [ "${ID:-}" != ubuntu ] || ! dpkg --compare-versions "${VERSION_ID:-0}" ge 22.04; then
  echo "setup.sh: this autograder needs an Ubuntu 22.04 or later base image, not ${PRETTY_NAME:-this one}:" \
       "choose Ubuntu 22.04 or 24.04 under Configure Autograder > Base Image" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# bubblewrap sandboxes the student's code; where the container refuses it, nothing is graded.
apt-get install -y -qq python3 python3-venv python3-pip bubblewrap
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "setup.sh: torch 2.13 needs Python 3.10 or later; python3 here is $(python3 -V 2>&1)" >&2
  exit 1
fi
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q --upgrade pip
# The CPU build of torch: Gradescope has no GPU, and the default wheel pulls in several GB of CUDA.
/autograder/venv/bin/pip install -q --extra-index-url __CPU_WHEELS__ \
    __REQUIREMENTS__
