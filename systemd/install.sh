#!/bin/bash
# Install the UNO Showdown unit daemon as a systemd service on Raspberry Pi OS.
#
#   sudo systemd/install.sh [--source DIR] [--allow-remote] [--dry-run]
#   sudo systemd/install.sh --uninstall [--purge] [--dry-run]
#
# Safe to run again: each step checks first and only acts when something is
# missing or different, so a second run changes nothing (rerun it after a
# `git pull` to upgrade: pip reinstalls the project and the service restarts if
# the installed files changed). See docs/systemd.md.
#
# The unit serves loopback and asks every TCP client for the token in
# /etc/uno-showdown/token: root:uno-showdown, mode 0640, so the service reads it
# through its group but cannot change it, and the people allowed to command the
# unit are root and the members of group uno-showdown. See docs/security.md.
#
# DESTDIR (for tests and staging) prefixes every file path; users, groups,
# owners (chown, stat) and systemctl are still whatever is first on PATH.
set -euo pipefail

readonly SERVICE=uno-showdown-unit
readonly SERVICE_USER=uno-showdown
readonly PREFIX=/opt/uno-showdown
readonly VENV=$PREFIX/venv
readonly MOTOR_SAFE=$PREFIX/motor-safe.sh
readonly CONF_DIR=/etc/uno-showdown
readonly CONFIG=$CONF_DIR/unit.toml
readonly TOKEN=$CONF_DIR/token
readonly TOKEN_OWNER=root:$SERVICE_USER     # useradd --user-group makes the group
readonly TOKEN_MODE=640
readonly STATE_DIR=/var/lib/uno-showdown
readonly UNIT_FILE=/etc/systemd/system/$SERVICE.service
readonly GROUPS_NEEDED=(gpio dialout)
D=${DESTDIR:-}

usage() {
    cat <<EOF
usage: install.sh [--source DIR] [--allow-remote] [--dry-run]
       install.sh --uninstall [--purge] [--dry-run]

  --source DIR    project checkout to install (default: the one this script is in)
  --allow-remote  a new config listens on all interfaces (LAN), not only loopback;
                  clients need the token in $TOKEN either way
  --dry-run       print what would be done and change nothing
  --uninstall     stop and remove the service and $PREFIX; keep config and results
  --purge         with --uninstall: also remove $CONF_DIR, $STATE_DIR and the user
EOF
}

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "$*"; }

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
    systemctl "is-$1" --quiet "$SERVICE" 2>/dev/null
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

install_package() {
    local pip=$D$VENV/bin/pip copy
    if (( dry_run )); then
        say "would run: $pip install --quiet --disable-pip-version-check ${source_dir}[pi]"
        return 0
    fi
    # Build from a clean copy: pip would otherwise leave root-owned build/ and
    # *.egg-info in the checkout, and a stale build/ can ship deleted modules.
    copy=$(mktemp -d)
    # The tools' caches are left out too: they change while a checker runs.
    tar -C "$source_dir" --exclude-vcs --exclude=./.venv --exclude=./build \
        --exclude='./*.egg-info' --exclude=./.pytest_cache --exclude=./.hypothesis \
        --exclude=./.mypy_cache --exclude=./.ruff_cache \
        -cf - . | tar -C "$copy" -xf -
    if ! run "$pip" install --quiet --disable-pip-version-check "${copy}[pi]"; then
        rm -rf "$copy"
        die "pip could not install the project (if lgpio failed to build: apt install swig liblgpio-dev)"
    fi
    rm -rf "$copy"
}

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
args=("$@")
action=install
allow_remote=0
dry_run=0
purge=0
while (( $# )); do
    case $1 in
        --source) [[ $# -ge 2 ]] || die "--source needs a directory"; source_dir=$2; shift ;;
        --source=*) source_dir=${1#--source=} ;;
        --allow-remote) allow_remote=1 ;;
        --dry-run) dry_run=1 ;;
        --uninstall) action=uninstall ;;
        --purge) purge=1 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; echo "install.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
if (( purge )) && [[ $action != uninstall ]]; then
    die "--purge only goes with --uninstall"
fi
if (( allow_remote )) && [[ $action == uninstall ]]; then
    die "--allow-remote does not go with --uninstall"
fi
if (( ! dry_run )) && [[ -z $D ]] && [[ $(id -u) -ne 0 ]]; then
    die "must be run as root (try: sudo $0 ${args[*]})"
fi

do_install() {
    [[ -f $source_dir/pyproject.toml && -f $source_dir/firmware_host/service/default.toml ]] \
        || die "$source_dir is not an uno-showdown checkout (no pyproject.toml or firmware_host/service/default.toml)"
    source_dir=$(cd "$source_dir" && pwd)
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "python3 is older than 3.11 (Raspberry Pi OS bookworm or later is needed)"

    local group
    for group in "${GROUPS_NEEDED[@]}"; do
        getent group "$group" >/dev/null || run groupadd --system "$group"
    done
    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "UNO Showdown unit" \
            --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$SERVICE_USER"
    else
        for group in "${GROUPS_NEEDED[@]}"; do
            [[ " $(id -nG "$SERVICE_USER") " == *" $group "* ]] \
                || run usermod --append --groups "$group" "$SERVICE_USER"
        done
    fi

    local changed=0 before
    if [[ ! -x $D$VENV/bin/python ]]; then
        run python3 -m venv "$D$VENV"
    fi
    before=$(package_fingerprint)
    install_package
    [[ $(package_fingerprint) == "$before" ]] || changed=1
    install_file "$source_dir/systemd/motor-safe.sh" "$D$MOTOR_SAFE" 0755 && changed=1

    write_token
    (( ! token_made )) || changed=1     # the daemon reads its token at start
    write_config

    if install_file "$source_dir/systemd/$SERVICE.service" "$D$UNIT_FILE" 0644; then
        changed=1
        run systemctl daemon-reload
    fi
    if ! service_is enabled || ! service_is active; then
        run systemctl enable --now "$SERVICE"
    elif (( changed )); then
        run systemctl restart "$SERVICE"
    fi

    command -v pinctrl >/dev/null \
        || say "warning: pinctrl not found (apt install raspi-utils): the service cannot force the motor pins low after a crash"
    if (( dry_run )); then
        say "dry run: nothing was changed; without --dry-run the installer runs the lines above"
        return 0
    fi
    say "done: journalctl -u $SERVICE -f   shows the log"
    say "to let a user command the unit: sudo usermod -aG $SERVICE_USER USER  (USER then logs in again)"
    say "  and gives the engine the token: showdown play --unit socket://127.0.0.1:7700 --token-file $TOKEN"
    if (( allow_remote )); then
        say "  an engine on another machine needs a private copy of $TOKEN (chmod 600) and --unit socket://THIS-PI:7700"
    fi
}

write_config() {
    if [[ -e $D$CONFIG ]]; then
        note_config
        return 0
    fi
    local new status=0 remote=()
    if (( allow_remote )); then
        remote=(-e 's|^listen = "127.0.0.1:7700"|listen = "0.0.0.0:7700"  |'
                -e 's|^allow_remote = false|allow_remote = true|')
    fi
    new=$(mktemp)
    sed -e "s|^token_file = \"\" *#|token_file = \"$TOKEN\"  #|" \
        -e "s|^token_file = \"\"\$|token_file = \"$TOKEN\"|" "${remote[@]}" \
        "$source_dir/firmware_host/service/default.toml" >"$new"
    # Check before installing, so a bad file never lands in /etc. The file
    # alone: the token and the journal folder it names are the service's,
    # checked when it starts.
    if [[ -x $D$VENV/bin/showdown-unit ]] \
            && ! "$D$VENV/bin/showdown-unit" check-config --file-only --config "$new" >/dev/null; then
        status=1
    elif ! grep -q "^token_file = \"$TOKEN\"" "$new"; then
        status=1
    elif (( allow_remote )) && ! { grep -q '^listen = "0.0.0.0:7700"' "$new" \
                                  && grep -q '^allow_remote = true' "$new"; }; then
        status=1
    fi
    (( status )) || run install -D -m 0644 "$new" "$D$CONFIG"
    rm -f "$new"
    (( ! status )) || die "could not make a valid $CONFIG from the packaged default"
}

# An existing config is the user's: say what it lacks, never edit it.
note_config() {
    local missing=()
    grep -qE "^[[:space:]]*token_file[[:space:]]*=[[:space:]]*(\"[^\"]+\"|'[^']+')" "$D$CONFIG" \
        || missing+=("token_file = \"$TOKEN\"")
    if (( allow_remote )) && ! grep -qE '^[[:space:]]*allow_remote[[:space:]]*=[[:space:]]*true' "$D$CONFIG"; then
        missing+=('listen = "0.0.0.0:7700"' 'allow_remote = true')
    fi
    (( ${#missing[@]} )) || return 0
    say "note: $CONFIG exists and is kept; add to its [server] table:"
    local line
    for line in "${missing[@]}"; do
        say "      $line"
    done
    if [[ ${missing[0]} == token_file* ]]; then
        say "      (without a token_file any local process, of any user, can command the unit)"
    fi
    say "      then: sudo systemctl restart $SERVICE"
}

# The token: one line, root:uno-showdown, mode 0640. A new one is made (and
# token_made set); an existing one keeps its text and gets its owner and mode
# put right.
token_made=0
write_token() {
    local dst=$D$TOKEN
    if [[ -L $dst ]] || { [[ -e $dst ]] && [[ ! -f $dst ]]; }; then
        die "$TOKEN is not a plain file; remove it and run install.sh again"
    fi
    if [[ ! -e $dst ]]; then
        local new
        new=$(mktemp)
        python3 -c 'import secrets; print(secrets.token_urlsafe(32))' >"$new"
        run install -D -m "0$TOKEN_MODE" "$new" "$dst"
        rm -f "$new"
        run chown "$TOKEN_OWNER" "$dst"
        token_made=1
        (( dry_run )) || say "made a new token in $TOKEN"
        return 0
    fi
    [[ $(stat -c %U:%G "$dst") == "$TOKEN_OWNER" ]] || run chown "$TOKEN_OWNER" "$dst"
    # After chown, which may clear mode bits.
    [[ $(stat -c %a "$dst") == "$TOKEN_MODE" ]] || run chmod "0$TOKEN_MODE" "$dst"
    # (Unreadable only to a --dry-run without root: then nothing to say.)
    if [[ -r $dst ]] && ! grep -q '[^[:space:]]' "$dst"; then
        say "warning: $TOKEN is empty, so the service will not start; delete it and run install.sh again"
    fi
}

do_uninstall() {
    if [[ -e $D$UNIT_FILE ]]; then
        if service_is enabled || service_is active; then
            run systemctl disable --now "$SERVICE"
        fi
        run rm -f "$D$UNIT_FILE"
        run systemctl daemon-reload
    fi
    if [[ -e $D$PREFIX ]]; then
        run rm -rf "$D$PREFIX"
    fi
    if (( purge )); then
        local dir
        for dir in "$D$CONF_DIR" "$D$STATE_DIR"; do
            if [[ -e $dir ]]; then
                run rm -rf "$dir"
            fi
        done
        if getent passwd "$SERVICE_USER" >/dev/null; then
            run userdel "$SERVICE_USER"
        fi
    elif (( dry_run )); then
        say "would keep: $CONF_DIR (config) and $STATE_DIR (results); --purge removes them"
    else
        say "kept: $CONF_DIR (config) and $STATE_DIR (results); --purge removes them"
    fi
    (( ! dry_run )) || say "dry run: nothing was changed"
}

if [[ $action == install ]]; then
    do_install
else
    do_uninstall
fi
