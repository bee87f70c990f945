#!/usr/bin/env node
// The `pith` command of the npm package: runs the native binary from the platform package npm
// installed beside this one (pith-<platform>-<arch>, an optional dependency whose `os` and
// `cpu` fields let npm install only the one that fits), with the same arguments, stdio and
// exit code. Signals sent to this process are passed on to pith.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

const platformPackage = `pith-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "pith.exe" : "pith";

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${platformPackage}/package.json`)), "bin", exe);
} catch {
  const known = Object.keys(require("../package.json").optionalDependencies || {});
  console.error(
    `pith: no pith binary for ${process.platform}-${process.arch}: the package ${platformPackage} ` +
      `is not installed (${known.length ? `built for: ${known.join(", ")}` : "no platform built"}; ` +
      "an install with --omit=optional leaves it out). Install with cargo instead: " +
      "cargo install --locked --path crates/cli --profile dist"
  );
  process.exit(2);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
const forward = (signal) => () => child.kill(signal);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, forward(signal));
}
child.on("error", (err) => {
  console.error(`pith: cannot run ${binary}: ${err.message}`);
  process.exit(2);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, as pith did.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
