#!/usr/bin/env bash
# Makes pith's two npm packages for the platform at hand from a built binary, and packs them:
#
#     packaging/npm/build.sh BINARY OUT_DIR
#
# OUT_DIR/pith-<os>-<cpu>-<version>.tgz holds the binary, with `os` and `cpu` fields so that
# npm installs it only where it runs; OUT_DIR/pith-<version>.tgz is the launcher
# (packaging/npm/pith: bin/pith.js), which names the platform package as an optional
# dependency and runs its binary: the pattern esbuild and biome use. The version is the one the
# binary reports. A release runs this on each platform and lists every platform package in the
# launcher's optionalDependencies; here the launcher names the one platform built.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: packaging/npm/build.sh BINARY OUT_DIR" >&2
    exit 2
fi
binary=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
version=$("$binary" --version | awk '{print $2}')
os=$(node -p process.platform)
cpu=$(node -p process.arch)
platform="pith-$os-$cpu"
exe=pith
[ "$os" = win32 ] && exe=pith.exe

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$platform/bin" "$out"
out=$(cd "$out" && pwd)
cp "$binary" "$stage/$platform/bin/$exe"
chmod 755 "$stage/$platform/bin/$exe"
cp -R "$here/pith" "$stage/pith"

# Both package.json files, written by node so that they are valid JSON whatever the names.
node - "$stage" "$platform" "$version" "$os" "$cpu" "$exe" <<'JS'
const fs = require("fs");
const path = require("path");
const [stage, platform, version, os, cpu, exe] = process.argv.slice(2);
const launcherFile = path.join(stage, "pith", "package.json");
const launcher = JSON.parse(fs.readFileSync(launcherFile, "utf8"));
launcher.version = version;
launcher.optionalDependencies = { [platform]: version };
fs.writeFileSync(launcherFile, JSON.stringify(launcher, null, 2) + "\n");
const pkg = {
  name: platform,
  version,
  description: `The pith binary for ${os}-${cpu}; installed by the pith package.`,
  license: launcher.license,
  os: [os],
  cpu: [cpu],
  files: [`bin/${exe}`],
  preferUnplugged: true,
};
fs.writeFileSync(path.join(stage, platform, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
fs.writeFileSync(
  path.join(stage, platform, "README.md"),
  `# ${platform}\n\nThe \`pith\` binary for ${os}-${cpu}. Install the \`pith\` package, not this one.\n`
);
JS

for dir in "$platform" pith; do
    (cd "$stage/$dir" && npm pack --silent --pack-destination "$out" >/dev/null)
done
echo "$out/$platform-$version.tgz"
echo "$out/pith-$version.tgz"
