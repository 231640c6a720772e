#!/bin/sh
# The thread and task tables' columns reach --json, the info view and the
# lanes view: col3_full.h5's tables as tests/gen/FIXTURES.md lists them
# (thread worker-1: daemon, start 150, end 900, cpu 400 ns; task Task-1:
# created 90, done 700, 3 steps, running 250, suspended 350 ns, kind task,
# coroutine handler; the timeline's zero is 100 ns), and a task's idle
# time counts from its creation to its end (600 ns window - 300 busy).
. "${0%/*}/lib.sh"
f="$fx/col3_full.h5"
need_fixture "$f"

run --json "$f"
check "--json: worker-1's row" hasf '{"row": 1, "name": "worker-1", "ident": 12, "native_id": 102, "daemon": true, "start_time": 1.5e-07, "end_time": 9e-07, "cpu_time": 4e-07}'
check "--json: MainThread still running" hasf '"name": "MainThread", "ident": 11, "native_id": 101, "daemon": false, "start_time": 0, "end_time": null, "cpu_time": 7e-07}'
check "--json: Task-1's row" hasf '"tasks": [{"row": 0, "name": "Task-1", "kind": "task", "coro_name": "handler", "thread": 0, "created_time": 9e-08, "done_time": 7e-07, "unfinished": false, "steps": 3, "running_time": 2.5e-07, "suspended_time": 3.5e-07}]'
check "--json: rank 1 has no task table" hasf '{"rank": 1, "threads": [{"row": 0, "name": "MainThread", "ident": 21'
run --json --ranks 1 "$f"
check "--json --ranks 1: only rank 1's tables" hasnt '"rank": 0, "threads"'

screen 160x60 "5" "$f"
check "info: thread columns" hasx 'row  name +ident  native_id  daemon +start +end +cpu'
check "info: worker-1 from the zero" hasx '1  worker-1 +12 +102  yes +50 ns +800 ns +400 ns'
check "info: MainThread running" hasx '0  MainThread +11 +101  no +-100 ns  running  700 ns'
check "info: Task-1" hasx '0  Task-1 +0 \(MainThread\)  task  handler +-10 ns  600 ns +3 +250 ns +350 ns'

screen 220x12 "7" "$f"
check "lanes: the table columns" hasx 'CPU  Steps   Running Suspended Lived +Kind'
check "lanes: Task-1 idle from creation to end" hasx 'task Task-1 +300 ns +20% +120 ns +300 ns'
check "lanes: Task-1's table row" hasx '3 +250 ns +350 ns -10 ns to 600 ns +task handler'
check "lanes: worker-1 daemon" hasx '400 ns +50 ns to 800 ns +daemon'
check "lanes: MainThread running" hasx '700 ns +-100 ns to running +thread'
screen 120x12 "7" "$f"
check "lanes: narrow, the table columns go first" hasnt 'Suspended'
finish
