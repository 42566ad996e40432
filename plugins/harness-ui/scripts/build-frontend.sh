#!/usr/bin/env bash
# Rebuild the committed chat page bundle (harness_ui/static) from frontend/ with the pinned
# packages of frontend/package-lock.json. Needs Node.js 20+ and npm; users of the Python
# package never run this.
set -euo pipefail
cd "$(dirname "$0")/../frontend"
npm ci --no-audit --no-fund --loglevel=error
node build.mjs
