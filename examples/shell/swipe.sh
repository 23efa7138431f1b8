#!/bin/sh
# swipe.sh - one swipe through a Greenroom page session, from a shell, and the child lifecycle it caused.
#
# Usage:
#   examples/shell/swipe.sh [--socket PATH]
#
# The socket is found as greenroomctl finds it: --socket, else $GREENROOM_SOCKET, else
# $XDG_RUNTIME_DIR/greenroom/host.sock, else /tmp/greenroom-$(id -u)/host.sock.
# It needs a running host (`greenroom serve`, real or virtual clock), socat, and greenroomctl:
# $GREENROOMCTL, else clients/shell/greenroomctl of this repository, else greenroomctl on PATH.
# jq is used when installed (GREENROOM_NO_JQ=1 uses awk instead, as greenroomctl does).
#
# What it does, all on one connection (objects belong to the connection that made them, so the page
# session lives as long as this script's `greenroomctl session`):
#   1. starts `greenroomctl session` as a coprocess: requests go in through one fifo, replies and
#      events come out of another, one JSON text per line;
#   2. subscribes to its own lifecycle and page events (events.subscribe);
#   3. creates a page session of 5 `Container` pages, 375 x 667 points, on page 1 (offset 375;
#      page i sits at offset i * 375), and reads the session's id from the reply;
#   4. swipes from page 1 to page 2, as a scroll view reports it (UIScrollViewDelegate's names):
#        willBeginDragging 375, didScroll 420 480 560, willEndDragging 560 (velocity 1.6, target 750),
#        didEndDragging 560 (willDecelerate true), didScroll 700 740, didEndDecelerating 750
#   5. prints the appearance hooks the pages got during the swipe, one per line, in the words of the
#      GYPageViewController article (docs/pages.md): the interactive order of a swipe to the next page:
#        willAppear 2
#        willDisappear 1
#        didAppear 2
#        didDisappear 1
#
# Progress notes go to stderr; stdout is only the sequence. Exit status: 0 ok, 1 failure (no host,
# a call failed, the swipe did not end on page 2), 64 usage error.

set -u

PROG=swipe.sh
say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() {
	say "$*"
	exit 1
}
usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit "${1:-64}"
}

socket=
while [ $# -gt 0 ]; do
	case $1 in
	-s | --socket)
		[ $# -ge 2 ] || usage
		socket=$2
		shift 2
		;;
	--socket=*)
		socket=${1#--socket=}
		shift
		;;
	-h | --help) usage 0 ;;
	*)
		say "unknown argument '$1'"
		usage
		;;
	esac
done

# greenroomctl: $GREENROOMCTL, else the one in this repository, else on PATH.
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${GREENROOMCTL:-}" ]; then
	ctl=$GREENROOMCTL
elif [ -f "$here/../../clients/shell/greenroomctl" ]; then
	ctl=$here/../../clients/shell/greenroomctl
elif command -v greenroomctl >/dev/null 2>&1; then
	ctl=$(command -v greenroomctl)
else
	die "greenroomctl not found (set GREENROOMCTL or put clients/shell on PATH)"
fi
[ -f "$ctl" ] || die "greenroomctl not found at $ctl"

use_jq=
if [ -z "${GREENROOM_NO_JQ:-}" ] && command -v jq >/dev/null 2>&1; then use_jq=1; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/swipe.XXXXXX") || die "cannot create a temporary directory"
ctl_pid=
cleanup() {
	if [ -n "$ctl_pid" ]; then
		exec 4>&- # end of input: the session prints what is still due, closes, exits
		cat <&5 >/dev/null
		exec 5<&-
		wait "$ctl_pid"
		ctl_pid=
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap '' PIPE # writing to a session that has ended fails (and says so) instead of killing the script

# 1. The session, a coprocess (bash has `coproc`; POSIX sh makes one from two fifos). It runs with sh
#    unless it is executable; --socket is passed only when given, so greenroomctl's default applies.
if [ -n "$socket" ]; then set -- --socket "$socket"; fi
mkfifo "$tmp/in" "$tmp/out" || die "cannot create fifos in $tmp"
if [ -x "$ctl" ]; then
	"$ctl" "$@" session <"$tmp/in" >"$tmp/out" 2>"$tmp/session.err" &
else
	sh "$ctl" "$@" session <"$tmp/in" >"$tmp/out" 2>"$tmp/session.err" &
fi
ctl_pid=$!
exec 4>"$tmp/in" 5<"$tmp/out"

# rpc METHOD [PARAMS]: sends one request on the session and reads lines up to its reply, which it
# leaves in $reply (the whole line). Events that come first are kept in $tmp/events.ndjson. The
# host writes a fixed envelope, so a line's start tells them apart: a reply starts
# {"jsonrpc":"2.0","id":  and an event {"jsonrpc":"2.0","method":  (with jq: has("id")).
reply=
rpc() {
	printf '%s %s\n' "$1" "${2:-}" >&4 || die "the session has ended: $(cat "$tmp/session.err")"
	while IFS= read -r line <&5; do
		case $line in
		'{"jsonrpc":"2.0","id":'*)
			reply=$line
			case ${line#*'"id":'*,} in
			'"error":'*) die "$1 failed: $line" ;;
			esac
			return 0
			;;
		*) printf '%s\n' "$line" >>"$tmp/events.ndjson" ;;
		esac
	done
	die "the session ended before the reply to $1: $(cat "$tmp/session.err")"
}

# 2. Our own objects' events, on this connection.
rpc events.subscribe '{"topics":["lifecycle","page"]}'

# 3. The page session; its id comes in the reply: {"jsonrpc":"2.0","id":2,"result":{"session":"p-N",...}}
rpc page.create '{"class":"Container","count":5,"width":375,"height":667,"initialIndex":1}'
if [ -n "$use_jq" ]; then
	session=$(printf '%s\n' "$reply" | jq -r '.result.session')
else
	session=$(printf '%s\n' "$reply" | sed -n 's/.*"result":{"session":"\([^"]*\)".*/\1/p')
fi
[ -n "$session" ] || die "no session id in the page.create reply: $reply"
s="\"session\":\"$session\""

# 4. The swipe, as the scroll view reports it.
rpc page.willBeginDragging "{$s,\"offset\":375}"
rpc page.didScroll "{$s,\"offset\":420}"
rpc page.didScroll "{$s,\"offset\":480}"
rpc page.didScroll "{$s,\"offset\":560}"
rpc page.willEndDragging "{$s,\"offset\":560,\"velocity\":1.6,\"targetOffset\":750}"
rpc page.didEndDragging "{$s,\"offset\":560,\"willDecelerate\":true}"
rpc page.didScroll "{$s,\"offset\":700}"
rpc page.didScroll "{$s,\"offset\":740}"
rpc page.didEndDecelerating "{$s,\"offset\":750}"
# Every event a request causes comes before its reply: the transition has ended by now.
grep -q '"kind":"didTransition"' "$tmp/events.ndjson" ||
	die "the swipe did not come to rest (no didTransition event for $session)"
say "swiped $session from page 1 to page 2"

# 5. On the stream, the swipe lies between the session's willTransition page event (the drag heads
#    for a page) and its didTransition (at rest). Before it, page 1 appeared when the session was
#    created. Lifecycle events of a page's child carry "page":{"session":..,"index":..}.
if [ -n "$use_jq" ]; then
	jq -r '
		{viewWillAppear: "willAppear", viewDidAppear: "didAppear",
		 viewWillDisappear: "willDisappear", viewDidDisappear: "didDisappear"} as $short
		| .params
		| if .kind == "willTransition" then "START"
		  elif .kind == "didTransition" then "END"
		  elif .page and $short[.event] then "\($short[.event]) \(.page.index)"
		  else empty end' <"$tmp/events.ndjson" |
		awk '/^START$/ { on = 1; next } /^END$/ { exit } on'
else
	awk '
		index($0, "\"kind\":\"willTransition\"") { on = 1; next }
		index($0, "\"kind\":\"didTransition\"") { exit }
		!on || !index($0, "\"page\":{") { next }
		match($0, /"event":"view(Will|Did)(Appear|Disappear)"/) {
			hook = substr($0, RSTART + 13, RLENGTH - 14) # WillAppear, DidDisappear...
			if (match($0, /"index":[0-9]+/))
				print tolower(substr(hook, 1, 1)) substr(hook, 2) " " substr($0, RSTART + 8, RLENGTH - 8)
		}' "$tmp/events.ndjson"
fi
