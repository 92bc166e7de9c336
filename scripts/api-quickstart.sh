#!/usr/bin/env bash
# The README's API quick start: sign in, create a personal access token, create a page through
# the public REST API, read it back through MCP. Set BASE, LOGIN, PASSWORD and POND (a pond whose
# settings switched on "Public API" and "MCP", on an instance where a site admin switched both on).
set -euo pipefail
BASE=${BASE:-http://localhost:3000}
LOGIN=${LOGIN:?your username or e-mail}
PASSWORD=${PASSWORD:?your password}
POND=${POND:?the pond slug, e.g. your username for your personal pond}
JAR=$(mktemp)
trap 'rm -f "$JAR"' EXIT

# 1. Sign in once and create a write token: its secret is shown this once, keep it safe.
curl -sSf -c "$JAR" -H 'content-type: application/json' \
  -d "$(jq -n --arg login "$LOGIN" --arg password "$PASSWORD" '{login: $login, password: $password}')" \
  "$BASE/api/v1/auth/login" > /dev/null
TOKEN=$(curl -sSf -b "$JAR" -H "origin: $BASE" -H 'content-type: application/json' \
  -d '{"name": "quick start", "scope": "write"}' "$BASE/api/v1/users/me/api-tokens" | jq -r .secret)

# 2. Create a page from Markdown through the REST API.
SLUG=$(curl -sSf -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -d '{"title": "Hello from a script", "markdown": "Written by **curl**."}' \
  "$BASE/api/public/v1/ponds/$POND/pages" | jq -r .slug)
echo "created $BASE/$POND/$SLUG"

# 3. Read it back through MCP (a stateless JSON-RPC call of the read_page tool).
curl -sSf -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -H 'accept: application/json, text/event-stream' \
  -d "$(jq -n --arg pond "$POND" --arg page "$SLUG" \
        '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "read_page", arguments: {pond: $pond, page: $page}}}')" \
  "$BASE/api/mcp" | jq -r '.result.structuredContent.content'
