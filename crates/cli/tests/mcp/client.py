"""A real MCP client (the official Python SDK) driving `pith mcp` over stdio for the tests.

Usage: python3 client.py PLAN_JSON

PLAN_JSON: {"command": [...], "cwd": DIR, "env": {...}, "mode": "handshake" | "modern",
            "roots": [URI, ...] (optional: the client offers these roots), "steps": [STEP, ...]}
STEP: {"list": true}
    | {"call": NAME, "args": {...}}
    | {"concurrent": [{"call": NAME, "args": {...}}, ...]}   calls started together
    | {"cancel": NAME, "args": {...}, "watch": DIR}         started, cancelled once a process
                                                            runs in DIR, then DIR watched
    | {"roots": [URI, ...]}                                  the client's roots change (and it
                                                            says so: roots/list_changed)
    | {"write": PATH, "text": TEXT} | {"remove": PATH}           a file written or removed between
                                                            calls (an agent's edit)
    | {"call": NAME, "args": {...}, "timeout": SECS, "progress": BOOL}
                                                            a host's request timeout: given up
                                                            (cancelled) after SECS without an
                                                            answer, SECS counted again from each
                                                            progress notification when it asks
                                                            for them (the TypeScript SDK's
                                                            resetTimeoutOnProgress)
Prints one JSON line per step on stdout: what the client received, as the SDK parsed it.
"""

import json
import os
import sys
import time
import warnings

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def result_json(r):
    return r.model_dump(mode="json", by_alias=True, exclude_none=True)


def pids_in(directory):
    """Processes whose working directory is DIR or below it (Linux /proc)."""
    directory = os.path.realpath(directory)
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == directory or cwd.startswith(directory + os.sep):
            found.append(int(pid))
    return found


async def call(session, step, on_progress=None):
    try:
        r = await session.call_tool(step["call"], step.get("args") or {}, progress_callback=on_progress)
        return {"result": result_json(r)}
    except Exception as e:  # a protocol error: the SDK raises it
        error = getattr(e, "error", None)
        code = getattr(error, "code", None)
        return {"error": {"code": code, "message": str(e)}}


async def call_with_timeout(session, step):
    timeout = step["timeout"]
    start = time.monotonic()
    deadline = [start + timeout]
    notes = []

    async def on_progress(progress, total, message):
        notes.append({"progress": progress, "message": message, "at": round(time.monotonic() - start, 2)})
        deadline[0] = time.monotonic() + timeout

    done = {}
    async with anyio.create_task_group() as tg:
        scope = anyio.CancelScope()

        async def run():
            with scope:
                done["answer"] = await call(session, step, on_progress if step.get("progress") else None)

        tg.start_soon(run)
        while "answer" not in done and time.monotonic() < deadline[0]:
            await anyio.sleep(0.05)
        if "answer" not in done:
            scope.cancel()
    out = {"elapsed": round(time.monotonic() - start, 2), "notes": notes}
    if "answer" in done:
        out.update(done["answer"])
    else:
        out["timedOut"] = True
    return out


async def cancel(session, step):
    cancelled = {}
    async with anyio.create_task_group() as tg:
        scope = anyio.CancelScope()

        async def run():
            with scope:
                cancelled["answer"] = await call(session, step)

        tg.start_soon(run)
        deadline = time.monotonic() + 60
        while not pids_in(step["watch"]) and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        started = bool(pids_in(step["watch"]))
        scope.cancel()
    # The runner has a grace period after SIGTERM before its group is killed outright.
    deadline = time.monotonic() + 10
    while pids_in(step["watch"]) and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    return {
        "started": started,
        "answered": "answer" in cancelled,
        "leftover": pids_in(step["watch"]),
    }


async def main(plan):
    roots = {"uris": plan.get("roots")}

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in roots["uris"]])

    offers_roots = roots["uris"] is not None
    params = StdioServerParameters(
        command=plan["command"][0],
        args=plan["command"][1:],
        cwd=plan["cwd"],
        env={**os.environ, **plan.get("env", {})},
    )
    async with stdio_client(params) as (read, write):
        callbacks = {"list_roots_callback": list_roots} if offers_roots else {}
        async with ClientSession(read, write, **callbacks) as session:
            if plan.get("mode") == "modern":
                found = await session.discover()
                print(json.dumps({"protocol": session.protocol_version, "serverInfo": result_json(found)}), flush=True)
            else:
                init = await session.initialize()
                print(json.dumps({"protocol": session.protocol_version, "serverInfo": result_json(init.server_info)}), flush=True)
            for step in plan["steps"]:
                if step.get("list"):
                    out = {"tools": result_json(await session.list_tools())}
                elif "concurrent" in step:
                    results = [None] * len(step["concurrent"])

                    async def one(i, s):
                        results[i] = await call(session, s)

                    async with anyio.create_task_group() as tg:
                        for i, s in enumerate(step["concurrent"]):
                            tg.start_soon(one, i, s)
                    out = {"concurrent": results}
                elif "write" in step:
                    os.makedirs(os.path.dirname(step["write"]), exist_ok=True)
                    with open(step["write"], "w") as f:
                        f.write(step["text"])
                    out = {"wrote": step["write"]}
                elif "remove" in step:
                    os.remove(step["remove"])
                    out = {"removed": step["remove"]}
                elif "roots" in step:
                    roots["uris"] = step["roots"]
                    await session.send_roots_list_changed()
                    out = {"roots": step["roots"]}
                elif "cancel" in step:
                    out = {"cancel": await cancel(session, {**step, "call": step["cancel"]})}
                elif "timeout" in step:
                    out = await call_with_timeout(session, step)
                else:
                    out = await call(session, step)
                print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    # Roots are deprecated from protocol 2026-07-28 on; hosts on the handshake still send them.
    warnings.simplefilter("ignore", DeprecationWarning)
    anyio.run(main, json.loads(sys.argv[1]))
