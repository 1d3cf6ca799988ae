#!/bin/bash
# Install the UNO Showdown unit daemon as a systemd service on Raspberry Pi OS.
#
#   sudo systemd/install.sh [--source DIR] [--allow-remote] [--with-table | --without-table]
#                           [--with-uplink BROKER [--venue NAME]] [--dry-run]
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
# --with-table adds the browser table (`showdown table`) as a second service,
# uno-showdown-table: the project's table extra in the same virtualenv, a
# dynamic user in group uno-showdown (so it reads the token), the unit on
# loopback, phones on the LAN at port 8700. Once installed, later runs keep it
# up to date; --without-table removes it (its saved match is kept). Its finished
# matches go to /var/lib/uno-showdown-matches/matches.sqlite3 (the group's, so
# the uplink may read them; see make_matches_dir).
#
# --with-uplink BROKER adds the league uplink (`showdown-unit uplink`) as the
# service uno-showdown-uplink: the project's league extra, the unit's user (it
# reads the journal, read-only), a new /etc/uno-showdown/uplink.toml naming
# the broker, the venue (--venue, default venue-1) and the unit (this Pi's
# host name), and with the table the table's match book (matches). Once
# installed, later runs keep it up to date. See docs/uplink.md.
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
readonly TABLE_SERVICE=uno-showdown-table
readonly TABLE_UNIT_FILE=/etc/systemd/system/$TABLE_SERVICE.service
readonly TABLE_PORT=8700                    # the --listen port in $TABLE_SERVICE.service
# DynamicUser=: /var/lib/$TABLE_SERVICE is a link into /var/lib/private.
readonly TABLE_STATE_DIRS=("/var/lib/$TABLE_SERVICE" "/var/lib/private/$TABLE_SERVICE")
# The table's match book (its --results), which the uplink reads: not in the
# table's own state directory, which DynamicUser= keeps under the 0700
# /var/lib/private, but in a folder of group uno-showdown (the table's
# SupplementaryGroups=, the uplink's Group=); see make_matches_dir.
readonly MATCHES_DIR=/var/lib/uno-showdown-matches
readonly MATCHES_OWNER=root:$SERVICE_USER
readonly MATCHES_MODE=2770
readonly MATCH_BOOK=$MATCHES_DIR/matches.sqlite3
readonly MATCH_BOOK_MODE=660
readonly UPLINK_SERVICE=uno-showdown-uplink
readonly UPLINK_UNIT_FILE=/etc/systemd/system/$UPLINK_SERVICE.service
readonly UPLINK_CONFIG=$CONF_DIR/uplink.toml
readonly UPLINK_STATE_DIR=/var/lib/$UPLINK_SERVICE
# A venue or unit name, as the league's wire checks it (clean_place).
readonly PLACE='^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$'
readonly GROUPS_NEEDED=(gpio dialout)
D=${DESTDIR:-}

usage() {
    cat <<EOF
usage: install.sh [--source DIR] [--allow-remote] [--with-table | --without-table]
                  [--with-uplink BROKER [--venue NAME]] [--dry-run]
       install.sh --uninstall [--purge] [--dry-run]

  --source DIR     project checkout to install (default: the one this script is in)
  --allow-remote   a new config listens on all interfaces (LAN), not only loopback;
                   clients need the token in $TOKEN either way
  --with-table     also install the browser table as the service $TABLE_SERVICE
                   (phones on the LAN, port $TABLE_PORT); once installed, later runs
                   keep it up to date
  --without-table  remove the $TABLE_SERVICE service; keep the unit and the saved match
  --with-uplink BROKER
                   also install the league uplink as the service $UPLINK_SERVICE,
                   sending results to the MQTT broker BROKER (HOST or HOST:PORT);
                   a new $UPLINK_CONFIG names it (an existing one is kept)
  --venue NAME     with --with-uplink: the venue's name in a new $UPLINK_CONFIG
                   (default venue-1)
  --dry-run        print what would be done and change nothing
  --uninstall      stop and remove the services and $PREFIX; keep config and results
  --purge          with --uninstall: also remove $CONF_DIR, $STATE_DIR, the table's
                   saved match and the user
EOF
}

PROG=install.sh
# shellcheck source=install-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"

install_package() {
    local extras=pi
    (( ! with_table )) || extras=$extras,table
    (( ! with_uplink )) || extras=$extras,league
    pip_install_project "$extras" \
        "pip could not install the project (if lgpio failed to build: apt install swig liblgpio-dev)"
}

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
args=("$@")
action=install
allow_remote=0
dry_run=0
purge=0
table_flag=
uplink_broker=
venue=
while (( $# )); do
    case $1 in
        --source) [[ $# -ge 2 ]] || die "--source needs a directory"; source_dir=$2; shift ;;
        --source=*) source_dir=${1#--source=} ;;
        --allow-remote) allow_remote=1 ;;
        --with-table|--without-table)
            [[ -z $table_flag || $table_flag == "$1" ]] \
                || die "--with-table and --without-table do not go together"
            table_flag=$1 ;;
        --with-uplink) [[ $# -ge 2 ]] || die "--with-uplink needs the broker, HOST or HOST:PORT"
            uplink_broker=$2; shift ;;
        --with-uplink=*) uplink_broker=${1#--with-uplink=} ;;
        --venue) [[ $# -ge 2 ]] || die "--venue needs a name"; venue=$2; shift ;;
        --venue=*) venue=${1#--venue=} ;;
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
if [[ -n $table_flag ]] && [[ $action == uninstall ]]; then
    die "$table_flag does not go with --uninstall (which removes both services)"
fi
if [[ -n $uplink_broker || -n $venue ]] && [[ $action == uninstall ]]; then
    die "--with-uplink and --venue do not go with --uninstall (which removes every service)"
fi
if [[ -n $venue && -z $uplink_broker ]]; then
    die "--venue only goes with --with-uplink BROKER"
fi
if [[ -n $uplink_broker ]] && ! [[ $uplink_broker =~ ^[A-Za-z0-9._-]+(:[0-9]{1,5})?$ ]]; then
    die "--with-uplink: the broker is HOST or HOST:PORT, not '$uplink_broker'"
fi
venue=${venue:-venue-1}
[[ $venue =~ $PLACE ]] \
    || die "--venue: 1 to 32 lower-case letters, digits and inner dashes (like bar-1), not '$venue'"
# The uplink: asked for, or installed by an earlier run (then kept up to date).
with_uplink=0
if [[ -n $uplink_broker ]] || [[ -e $D$UPLINK_UNIT_FILE ]]; then
    with_uplink=1
fi
# The table: asked for, or installed by an earlier run (then kept up to date).
with_table=0
if [[ $table_flag == --with-table ]] \
        || { [[ -z $table_flag ]] && [[ -e $D$TABLE_UNIT_FILE ]]; }; then
    with_table=1
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
    (( ! with_table )) || make_matches_dir
    (( ! with_uplink )) || write_uplink_config

    local reload=0 table_changed=0 uplink_changed=0
    if install_file "$source_dir/systemd/$SERVICE.service" "$D$UNIT_FILE" 0644; then
        changed=1
        reload=1
    fi
    if (( with_table )) \
            && install_file "$source_dir/systemd/$TABLE_SERVICE.service" "$D$TABLE_UNIT_FILE" 0644; then
        table_changed=1
        reload=1
    fi
    if (( with_uplink )) \
            && install_file "$source_dir/systemd/$UPLINK_SERVICE.service" "$D$UPLINK_UNIT_FILE" 0644; then
        uplink_changed=1
        reload=1
    fi
    (( ! reload )) || run systemctl daemon-reload
    if ! service_is enabled || ! service_is active; then
        run systemctl enable --now "$SERVICE"
    elif (( changed )); then
        run systemctl restart "$SERVICE"
    fi
    if (( with_table )); then
        # The table reads the token at start and runs the package's code.
        if ! service_is enabled "$TABLE_SERVICE" || ! service_is active "$TABLE_SERVICE"; then
            run systemctl enable --now "$TABLE_SERVICE"
        elif (( changed || table_changed )); then
            run systemctl restart "$TABLE_SERVICE"
        fi
        note_table_link
    elif [[ $table_flag == --without-table ]]; then
        remove_table
    fi

    if (( with_uplink )); then
        (( ! with_table )) || note_uplink_matches
        # The uplink runs the package's code; its config is read at start.
        if ! service_is enabled "$UPLINK_SERVICE" || ! service_is active "$UPLINK_SERVICE"; then
            run systemctl enable --now "$UPLINK_SERVICE"
        elif (( changed || uplink_changed || uplink_config_made )); then
            run systemctl restart "$UPLINK_SERVICE"
        fi
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
    if (( with_table )); then
        local address
        address=$(hostname -I 2>/dev/null | awk '{print $1}') || true
        say "the table: open its host URL (http://${address:-THIS-PI}:$TABLE_PORT/#host=...) on the display; phones scan its QR code"
        say "  journalctl -u $TABLE_SERVICE | grep 'host:' | tail -1   shows the host URL (keep it secret)"
        say "  journalctl -u $TABLE_SERVICE -f   shows its log, the host URL, the join URL and the QR code"
    fi
    if (( with_uplink )); then
        say "the uplink: journalctl -u $UPLINK_SERVICE -f   shows its log; its settings are in $UPLINK_CONFIG"
    fi
}

# A new uplink.toml from --with-uplink (an existing one is the user's: kept,
# with a note if it names another broker). The unit's name is this Pi's host
# name, made a league name (lower case, dashes).
uplink_config_made=0
write_uplink_config() {
    [[ -n $uplink_broker ]] || return 0
    if [[ -e $D$UPLINK_CONFIG ]]; then
        grep -qE "^[[:space:]]*broker[[:space:]]*=[[:space:]]*\"$uplink_broker\"" "$D$UPLINK_CONFIG" \
            || say "note: $UPLINK_CONFIG exists and is kept; set broker = \"$uplink_broker\" in it, then: sudo systemctl restart $UPLINK_SERVICE"
        return 0
    fi
    local unit new
    unit=$(hostname -s 2>/dev/null | tr 'A-Z_. ' 'a-z---' | tr -cd 'a-z0-9-' | sed -e 's/^-*//' | cut -c1-32 | sed -e 's/-*$//') || true
    [[ $unit =~ $PLACE ]] || unit=unit-1
    local matches_line="# matches = \"$MATCH_BOOK\"  # the browser table's match book (install.sh --with-table)"
    if (( with_table )); then
        matches_line="matches = \"$MATCH_BOOK\"  # the browser table's finished matches go too"
    fi
    new=$(mktemp)
    cat >"$new" <<CONFIG
# The league uplink's settings (showdown-unit uplink): see docs/uplink.md.
# Flags given to showdown-unit uplink override these.
[uplink]
broker = "$uplink_broker"     # the venue's MQTT broker, HOST or HOST:PORT
venue = "$venue"
unit = "$unit"                # unique in the venue: the league refuses a second one
# username = "$unit"
# password_file = "/etc/uno-showdown/uplink-password"  # root:uno-showdown, mode 0640
# tls = true                  # or ca_file = "/etc/uno-showdown/broker-ca.pem"
$matches_line
# ha_discovery = false        # Home Assistant's MQTT discovery
CONFIG
    run install -D -m 0644 "$new" "$D$UPLINK_CONFIG"
    rm -f "$new"
    uplink_config_made=1
}

# With the table and the uplink both, the uplink sends the table's matches when
# its config names the book: a config kept from before the table is told so.
note_uplink_matches() {
    [[ -e $D$UPLINK_CONFIG ]] || return 0
    grep -qE "^[[:space:]]*matches[[:space:]]*=" "$D$UPLINK_CONFIG" && return 0
    say "note: $UPLINK_CONFIG names no match book, so the table's matches stay on this Pi;"
    say "      add matches = \"$MATCH_BOOK\" to its [uplink] table, then: sudo systemctl restart $UPLINK_SERVICE"
}

# The table's match book and its folder, both the group's: the folder
# root:uno-showdown 2770 (setgid: the book's -wal and -shm get the group too),
# the book an empty SQLite file root:uno-showdown 0660 (SQLite gives its -wal and
# -shm the book's mode, which the table's UMask=0077 would not). Made, or put right.
make_matches_dir() {
    local dir=$D$MATCHES_DIR book=$D$MATCH_BOOK
    if [[ -L $dir ]] || { [[ -e $dir ]] && [[ ! -d $dir ]]; }; then
        die "$MATCHES_DIR is not a folder; remove it and run install.sh again"
    fi
    if [[ -L $book ]] || { [[ -e $book ]] && [[ ! -f $book ]]; }; then
        die "$MATCH_BOOK is not a plain file; remove it and run install.sh again"
    fi
    put_right "$dir" "$MATCHES_MODE" -d
    put_right "$book" "$MATCH_BOOK_MODE" /dev/null
}

# put_right PATH MODE (-d | /dev/null): make the folder or empty file with
# $MATCHES_OWNER and MODE, or put its owner and mode right.
put_right() {
    local path=$1 mode=$2 what=$3
    if [[ ! -e $path ]]; then
        run install -m "0$mode" "$what" "$path"
        run chown "$MATCHES_OWNER" "$path"
    else
        [[ $(stat -c %U:%G "$path") == "$MATCHES_OWNER" ]] || run chown "$MATCHES_OWNER" "$path"
    fi
    # After chown, which may clear the setgid bit (nothing to look at in a dry run).
    if [[ -e $path ]] && [[ $(stat -c %a "$path") != "$mode" ]]; then
        run chmod "0$mode" "$path"
    fi
}

# The table reaches the unit at socket://127.0.0.1:7700 (its ExecStart). A config
# that serves elsewhere (or no TCP at all) needs a drop-in: say so, never edit.
note_table_link() {
    local effective listen
    # No config yet (a dry run before the first install): it will be the packaged
    # default. A config that does not load: the unit says why when it starts.
    [[ -x $D$VENV/bin/showdown-unit && -r $D$CONFIG ]] || return 0
    effective=$("$D$VENV/bin/showdown-unit" check-config --file-only --config "$D$CONFIG" 2>/dev/null) \
        || return 0
    grep -q '^listen = "' <<<"$effective" || return 0
    listen=$(sed -n 's/^listen = "\(.*\)"$/\1/p' <<<"$effective")
    case $listen in
        127.0.0.1:7700|0.0.0.0:7700|localhost:7700) ;;
        "")
            say "note: $CONFIG serves no TCP (listen = \"\"), so $TABLE_SERVICE cannot reach the unit;"
            say "      set listen = \"127.0.0.1:7700\" in its [server] table, then: sudo systemctl restart $SERVICE" ;;
        *)
            say "note: the unit listens on $listen, but $TABLE_SERVICE looks for it at 127.0.0.1:7700;"
            say "      give the table the unit's address: sudo systemctl edit $TABLE_SERVICE  (see docs/systemd.md)" ;;
    esac
}

# --without-table: stop and remove the table's service; its saved match stays.
remove_table() {
    if [[ -e $D$TABLE_UNIT_FILE ]]; then
        if service_is enabled "$TABLE_SERVICE" || service_is active "$TABLE_SERVICE"; then
            run systemctl disable --now "$TABLE_SERVICE"
        fi
        run rm -f "$D$TABLE_UNIT_FILE"
        run systemctl daemon-reload
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
    local name file reload=0
    for name in "$UPLINK_SERVICE" "$TABLE_SERVICE" "$SERVICE"; do     # the unit last: the others want it
        file=/etc/systemd/system/$name.service
        if [[ -e $D$file ]]; then
            if service_is enabled "$name" || service_is active "$name"; then
                run systemctl disable --now "$name"
            fi
            run rm -f "$D$file"
            reload=1
        fi
    done
    (( ! reload )) || run systemctl daemon-reload
    if [[ -e $D$PREFIX ]]; then
        run rm -rf "$D$PREFIX"
    fi
    if (( purge )); then
        local dir
        for dir in "$D$CONF_DIR" "$D$STATE_DIR" "$D$UPLINK_STATE_DIR" "$D$MATCHES_DIR" "${TABLE_STATE_DIRS[@]/#/$D}"; do
            if [[ -e $dir || -L $dir ]]; then
                run rm -rf "$dir"
            fi
        done
        if getent passwd "$SERVICE_USER" >/dev/null; then
            run userdel "$SERVICE_USER"
        fi
    else
        local kept="$CONF_DIR (config) and $STATE_DIR (results)"
        if [[ -e $D${TABLE_STATE_DIRS[1]} || -L $D${TABLE_STATE_DIRS[0]} ]]; then
            kept="$CONF_DIR (config), $STATE_DIR (results) and ${TABLE_STATE_DIRS[0]} (the table's saved match)"
        fi
        say_kept "$kept"
    fi
    (( ! dry_run )) || say "dry run: nothing was changed"
}

if [[ $action == install ]]; then
    do_install
else
    do_uninstall
fi
