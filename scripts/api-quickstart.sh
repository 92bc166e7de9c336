#!/usr/bin/env bash
# The README's API quick start: sign in, create a personal access token that expires in a day
# (or reuse the one in TOKEN), create a page through the public REST API, read it back through
# MCP. Set BASE, LOGIN, PASSWORD and POND. A refusal prints the server's message and the switch
# to turn on, and the script stops.
set -euo pipefail
BASE=${BASE:-http://localhost:3000}
POND=${POND:?the pond slug, e.g. your username for your personal pond}
JAR=$(mktemp)
trap 'rm -f "$JAR"' EXIT

# Sends one request (curl's arguments); prints the answer, or the server's error and what to do.
call() {
  local answer status error
  answer=$(curl -sS -w '\n%{http_code}' "$@") || exit 1
  status=${answer##*$'\n'} answer=${answer%$'\n'*}
  # A REST or session error is {"error": …}; an MCP tool's refusal carries the same inside its result.
  error=$(jq -c '.error // (.result | select(.isError == true) | .content[0].text | fromjson | .error) // empty' <<<"$answer" 2>/dev/null || true)
  if [ "$status" -lt 400 ] && [ -z "$error" ]; then printf '%s\n' "$answer"; return; fi
  echo "refused (HTTP $status): $(jq -r '.message // .code' <<<"${error:-null}" 2>/dev/null || echo "$answer")" >&2
  case "$(jq -r '.code' <<<"${error:-null}" 2>/dev/null)" in
    api_disabled) echo 'Switch it on: a site admin turns on "Public REST API" under Administration → Integrations.' >&2 ;;
    mcp_disabled) echo 'Switch it on: a site admin turns on "MCP for AI assistants" under Administration → Integrations.' >&2 ;;
    not_found) echo "Switch it on: in the settings of pond $POND, under \"Access for programs\", allow the public REST API and AI assistants through MCP (and check the slug)." >&2 ;;
  esac
  exit 1
}

# 1. Sign in once and create a write token that expires in a day; or reuse one: TOKEN=dt_pat_…
if [ -z "${TOKEN:-}" ]; then
  call -c "$JAR" -H 'content-type: application/json' \
    -d "$(jq -n --arg login "${LOGIN:?your username or e-mail}" --arg password "${PASSWORD:?your password}" '{login: $login, password: $password}')" \
    "$BASE/api/v1/auth/login" > /dev/null
  TOKEN=$(call -b "$JAR" -H "origin: $BASE" -H 'content-type: application/json' \
    -d "$(jq -n '{name: "quick start", scope: "write", expiresAt: (now + 86400 | todate)}')" \
    "$BASE/api/v1/users/me/api-tokens" | jq -r .secret)
fi

# 2. Create a page from Markdown through the REST API.
SLUG=$(call -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -d '{"title": "Hello from a script", "markdown": "Written by **curl**."}' \
  "$BASE/api/public/v1/ponds/$POND/pages" | jq -r .slug)
echo "created $BASE/$POND/$SLUG"

# 3. Read it back through MCP (a stateless JSON-RPC call of the read_page tool).
call -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -H 'accept: application/json, text/event-stream' \
  -d "$(jq -n --arg pond "$POND" --arg page "$SLUG" \
        '{jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "read_page", arguments: {pond: $pond, page: $page}}}')" \
  "$BASE/api/mcp" | jq -r '.result.structuredContent.content'
