#!/bin/sh
# swipe.sh - one swipe through a Greenroom page session, from a shell, and the child lifecycle it caused.
#
# Usage:
#   examples/shell/swipe.sh --socket /path/to/host.sock
#   GREENROOM_SOCKET=/path/to/host.sock examples/shell/swipe.sh
#
# It needs a running host (`greenroom serve`, real or virtual clock), socat, and greenroomctl:
# $GREENROOMCTL, else clients/shell/greenroomctl of this repository, else greenroomctl on PATH.
# jq is used when installed (GREENROOM_NO_JQ=1 uses awk instead, as greenroomctl does).
#
# What it does:
#   1. starts `greenroomctl events --scope all lifecycle page` in the background and waits for its
#      --ready-file: the subscription is in place, no event can be missed;
#   2. creates a page session of 5 `Container` pages, 375 x 667 points, on page 1 (offset 375;
#      page i sits at offset i * 375);
#   3. swipes from page 1 to page 2, as a scroll view reports it (UIScrollViewDelegate's names):
#        willBeginDragging 375, didScroll 420 480 560, willEndDragging 560 (velocity 1.6, target 750),
#        didEndDragging 560 (willDecelerate true), didScroll 700 740, didEndDecelerating 750
#   4. prints the appearance hooks the pages got during the swipe, one per line, in the GYPageViewController article's
# words (docs/pages.md):
#        willAppear 2
#        willDisappear 1
#        didAppear 2
#        didDisappear 1
#
# Progress notes go to stderr; stdout is only the sequence. Exit status: 0 ok, 1 failure (no host,
# a call failed, the events never came), 64 usage error.
#
# Why one `greenroomctl batch`: objects belong to the connection that made them and are torn down
# when it closes, and greenroomctl opens one connection per command. So the session is created and
# swiped by one batch (one connection). A batch is written before any reply is read, so the script
# first learns the id the session will get (`p-N`: the host numbers sessions in order) from a
# throwaway page.create, then checks that the batch's page.create got that id; if another client
# took it in between, it tries again.

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

socket=${GREENROOM_SOCKET:-}
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
if [ -z "$socket" ]; then
	say "no host socket: give --socket PATH or set GREENROOM_SOCKET"
	usage
fi

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
# It is a POSIX sh script: run it with sh unless it is executable.
if [ -x "$ctl" ]; then ctl_sh=; else ctl_sh="sh"; fi
gr() { $ctl_sh "$ctl" --socket "$socket" "$@"; }

use_jq=
if [ -z "${GREENROOM_NO_JQ:-}" ] && command -v jq >/dev/null 2>&1; then use_jq=1; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/swipe.XXXXXX") || die "cannot create a temporary directory"
events_pid=
cleanup() {
	if [ -n "$events_pid" ]; then
		kill "$events_pid" 2>/dev/null # greenroomctl closes its connection and exits
		wait "$events_pid" 2>/dev/null
		events_pid=
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_for WHAT COMMAND...: runs COMMAND every 0.05 s until it succeeds, for at most 10 s.
wait_for() {
	_what=$1
	shift
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ "$_i" -lt 200 ] || return 1
		if [ -n "$events_pid" ] && ! kill -0 "$events_pid" 2>/dev/null; then
			say "the event stream ended while waiting for $_what"
			return 1
		fi
		sleep 0.05
	done
}

# session_of: the `session` member of a page.create result, or of a raw reply line
# {"jsonrpc":"2.0","id":1,"result":{...}}, on stdin.
session_of() {
	if [ -n "$use_jq" ]; then
		jq -r '(.result // .) | .session // empty' | head -n 1
	else
		sed -n 's/.*"session":"\(p-[0-9][0-9]*\)".*/\1/p' | head -n 1
	fi
}

# 1. The event stream: a monitor (--scope all sees the objects of every connection, the batch's too).
#    Started directly rather than through gr, so that $! is greenroomctl itself.
$ctl_sh "$ctl" --socket "$socket" events --scope all --ready-file "$tmp/ready" lifecycle page \
	>"$tmp/events.ndjson" 2>"$tmp/events.err" &
events_pid=$!
wait_for "the subscription" test -e "$tmp/ready" ||
	die "the event stream did not start: $(cat "$tmp/events.err")"

attempt=0
while :; do
	attempt=$((attempt + 1))
	[ "$attempt" -le 5 ] || die "other clients kept taking the session id; gave up after 5 attempts"

	# 2. Which id will the next page session get? A throwaway one-page session says (it goes away
	#    with its greenroomctl connection).
	probe=$(gr call page.create '{"class":"Container","count":1,"width":375,"height":667}') ||
		die "page.create failed (is this a Greenroom host?)"
	n=$(printf '%s\n' "$probe" | session_of)
	n=${n#p-}
	case $n in '' | *[!0-9]*) die "unexpected page.create reply: $probe" ;; esac
	session=p-$((n + 1))

	# 3. Create the session and swipe, all on one connection: one request per line.
	s="\"session\":\"$session\""
	cat >"$tmp/batch.ndjson" <<-EOF
		{"method":"page.create","params":{"class":"Container","count":5,"width":375,"height":667,"initialIndex":1}}
		{"method":"page.willBeginDragging","params":{$s,"offset":375}}
		{"method":"page.didScroll","params":{$s,"offset":420}}
		{"method":"page.didScroll","params":{$s,"offset":480}}
		{"method":"page.didScroll","params":{$s,"offset":560}}
		{"method":"page.willEndDragging","params":{$s,"offset":560,"velocity":1.6,"targetOffset":750}}
		{"method":"page.didEndDragging","params":{$s,"offset":560,"willDecelerate":true}}
		{"method":"page.didScroll","params":{$s,"offset":700}}
		{"method":"page.didScroll","params":{$s,"offset":740}}
		{"method":"page.didEndDecelerating","params":{$s,"offset":750}}
		{"method":"page.info","params":{$s}}
	EOF
	gr batch <"$tmp/batch.ndjson" >"$tmp/replies.ndjson"
	rc=$?
	first=$(head -n 1 "$tmp/replies.ndjson")
	case $first in
	*'"error"'*) die "page.create failed: $first" ;;
	esac
	got=$(printf '%s\n' "$first" | session_of)
	if [ "$got" != "$session" ]; then
		# Another client's session took the id first: our calls went to an object that is not ours
		# (-32002, changing nothing), and our own session is gone with our connection. Again.
		say "session id $session was taken (ours was ${got:-none}); trying again"
		continue
	fi
	[ "$rc" -eq 0 ] || die "a call failed: $(grep '"error"' "$tmp/replies.ndjson" | head -n 3)"
	break
done
say "swiped $session from page 1 to page 2"

# 4. On the stream, the swipe lies between the session's first willTransition page event (the drag
#    heads for a page) and its didTransition (at rest). Before it, page 1 appeared when the session
#    was created; after it comes the session's teardown (the batch's connection has closed).
ended() { grep '"didTransition"' "$tmp/events.ndjson" | grep -q "\"session\":\"$session\""; }
wait_for "the end of the swipe" ended || die "no didTransition event for $session arrived"

if [ -n "$use_jq" ]; then
	jq -r --arg s "$session" '
		{viewWillAppear: "willAppear", viewDidAppear: "didAppear",
		 viewWillDisappear: "willDisappear", viewDidDisappear: "didDisappear"} as $short
		| .params
		| if .kind == "willTransition" and .session == $s then "START"
		  elif .kind == "didTransition" and .session == $s then "END"
		  elif (.page.session // "") == $s and $short[.event] then "\($short[.event]) \(.page.index)"
		  else empty end' <"$tmp/events.ndjson" |
		awk '/^START$/ { on = 1; next } /^END$/ { exit } on'
else
	# The host writes compact JSON, one event per line, a child's page as "page":{"session":..,"index":..}.
	awk -v s="$session" '
		function about(kind) { return index($0, "\"kind\":\"" kind "\"") && index($0, "\"session\":\"" s "\"") }
		about("willTransition") { on = 1; next }
		about("didTransition") { exit }
		!on || !index($0, "\"page\":{\"session\":\"" s "\",") { next }
		match($0, /"event":"view(Will|Did)(Appear|Disappear)"/) {
			hook = substr($0, RSTART + 13, RLENGTH - 14) # WillAppear, DidDisappear...
			if (match($0, /"index":[0-9]+/))
				print tolower(substr(hook, 1, 1)) substr(hook, 2) " " substr($0, RSTART + 8, RLENGTH - 8)
		}' "$tmp/events.ndjson"
fi
