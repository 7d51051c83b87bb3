#!/bin/sh
# build.sh - the Rust app offline from Debian's librust-*-dev crates: cargo
# reads /usr/share/cargo/registry in place of the crate registry (a
# directory source), in a copy of the crate under $BUILD so that neither
# Cargo.lock nor target/ lands in the source tree.
set -eu
mkdir -p "$BUILD/crate/src" "$BUILD/cargo-home"
cp "$APP/Cargo.toml" "$BUILD/crate/"
cp "$APP/src/main.rs" "$BUILD/crate/src/"
cat > "$BUILD/cargo-home/config.toml" <<'TOML'
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
TOML
cd "$BUILD/crate"
CARGO_HOME="$BUILD/cargo-home" cargo build --release --offline --jobs 2
cp target/release/pgrtt-bench-rust-r2d2 "$BUILD/app"
