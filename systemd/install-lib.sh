# What install.sh (the unit's Pi) and install-league.sh (the league's machine)
# share; each sources this file. They set: PROG (their name, for errors),
# SERVICE (their main service), D (DESTDIR), VENV, dry_run and source_dir.

die() { echo "$PROG: $*" >&2; exit 1; }
say() { echo "$*"; }

# What an uninstall without --purge leaves, said.
say_kept() {
    if (( dry_run )); then
        say "would keep: $1; --purge removes them"
    else
        say "kept: $1; --purge removes them"
    fi
}

# Every change goes through run, so --dry-run shows exactly what would happen.
run() {
    if (( dry_run )); then
        say "would run: $*"
    else
        say "+ $*"
        "$@"
    fi
}

# Whether the service is enabled / active. A question only: what systemctl says
# on stderr (no such unit yet, no systemd in a container) is not the user's
# business, and "no" is the answer then.
service_is() {
    systemctl "is-$1" --quiet "${2:-$SERVICE}" 2>/dev/null
}

# Copy src to dst with mode unless identical; returns 0 if it changed anything.
install_file() {
    local src=$1 dst=$2 mode=$3
    if [[ -f $dst ]] && cmp -s "$src" "$dst" && [[ $(stat -c %a "$dst") == "${mode#0}" ]]; then
        return 1
    fi
    run install -D -m "$mode" "$src" "$dst"
}

package_fingerprint() {
    # pip's RECORD lists every installed file with its hash: same RECORD, same
    # code. direct_url.json names the temporary copy, so it is left out.
    local records=("$D$VENV"/lib/python3*/site-packages/uno_showdown-*.dist-info/RECORD)
    if [[ -f ${records[0]} ]]; then
        grep -hv '/direct_url.json,' "${records[@]}" | sha256sum
    fi
}

# pip_install_project EXTRAS WHY: the checkout with those extras into the venv;
# WHY is what to tell the user when pip fails.
pip_install_project() {
    local extras=$1 why=$2 pip=$D$VENV/bin/pip copy
    if (( dry_run )); then
        say "would run: $pip install --quiet --disable-pip-version-check ${source_dir}[$extras]"
        return 0
    fi
    # Build from a clean copy: pip would otherwise leave root-owned build/ and
    # *.egg-info in the checkout, and a stale build/ can ship deleted modules.
    copy=$(mktemp -d)
    # The tools' caches are left out too: they change while a checker runs. So are
    # the docs, tests and benchmarks (no package holds them: most of the checkout's
    # bytes, the screenshots, for nothing) and the bytecode, which pip writes anew.
    tar -C "$source_dir" --exclude-vcs --exclude=./.venv --exclude=./build \
        --exclude='./*.egg-info' --exclude=./.pytest_cache --exclude=./.hypothesis \
        --exclude=./.mypy_cache --exclude=./.ruff_cache --exclude=__pycache__ \
        --exclude=./docs --exclude=./tests --exclude=./benchmarks \
        -cf - . | tar -C "$copy" -xf -
    if ! run "$pip" install --quiet --disable-pip-version-check "${copy}[$extras]"; then
        rm -rf "$copy"
        die "$why"
    fi
    rm -rf "$copy"
}
