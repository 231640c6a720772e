#!/bin/sh
# autogen.sh: generate ./configure (and the Makefile.in) from configure.ac and
# Makefile.am.  Installs nothing: scripts/install-deps does that.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
