#!/usr/bin/env bash
# Build the base image docker environments run in, without pulling anything:
# a Debian bookworm minbase root file system made by debootstrap from the Debian
# mirror apt already uses, plus python3 (bash and coreutils are essential packages),
# imported with `docker import` as helium-sandbox:bookworm.
#
#   scripts/build-sandbox-image.sh            # skips if the image exists
#   scripts/build-sandbox-image.sh --force    # rebuilds it
#
# HELIUM_SANDBOX_IMAGE changes the tag, HELIUM_DEBIAN_MIRROR the mirror. Needs root.
set -euo pipefail

IMAGE="${HELIUM_SANDBOX_IMAGE:-helium-sandbox:bookworm}"
SUITE=bookworm
PACKAGES=python3,bash,coreutils,findutils,grep,sed,tar,gzip,procps

if [ "${1:-}" != "--force" ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    echo "build-sandbox-image: $IMAGE already exists, nothing to do (--force rebuilds it)"
    exit 0
fi

apt_mirror() {
    # The first Debian archive URI in apt's sources (one-line or deb822 format), not the security one.
    local files=() uri
    [ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
    for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] || return 0
    uri=$(grep -hoE '^[[:space:]]*(deb[[:space:]]+(\[[^]]*\][[:space:]]+)?|URIs:[[:space:]]*)[a-z]+://[^[:space:]]+' "${files[@]}" \
          | grep -oE '[a-z]+://[^[:space:]]+' | grep -E '/debian/?$' | grep -v -- '-security' | head -n1 || true)
    echo "${uri%/}"
}

MIRROR="${HELIUM_DEBIAN_MIRROR:-$(apt_mirror)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

[ "$(id -u)" = 0 ] || { echo "build-sandbox-image: debootstrap needs root: sudo $0" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "build-sandbox-image: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "build-sandbox-image: no Docker engine answers (start dockerd)" >&2; exit 1; }

ROOTFS=$(mktemp -d /tmp/helium-rootfs.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT

echo "build-sandbox-image: debootstrap --variant=minbase $SUITE from $MIRROR (with $PACKAGES) into $ROOTFS"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" \
    > /tmp/helium-debootstrap.log 2>&1 || {
    echo "build-sandbox-image: debootstrap failed; last lines of /tmp/helium-debootstrap.log:" >&2
    tail -n 20 /tmp/helium-debootstrap.log >&2
    exit 1
}

echo "build-sandbox-image: trimming apt caches and docs"
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
       "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/locale/*
mkdir -p "$ROOTFS"/app "$ROOTFS"/logs "$ROOTFS"/tests

echo "build-sandbox-image: docker import as $IMAGE"
tar -C "$ROOTFS" --numeric-owner -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'WORKDIR /' \
    --change 'CMD ["/bin/bash"]' \
    - "$IMAGE" >/dev/null

echo "build-sandbox-image: done: $(docker image inspect --format '{{.Id}} {{.Size}} bytes' "$IMAGE")"
