#!/bin/bash
# Install the UNO Showdown league (`showdown league`) on any Debian machine:
# the venue's broker (mosquitto, from apt) with a login for the league and one
# per unit, the database (PostgreSQL from apt, or SQLite in a file), and the
# service uno-showdown-league serving the standings and units pages.
#
#   sudo systemd/install-league.sh [--source DIR] [--db postgresql | --db sqlite]
#                                  [--listen HOST:PORT] [--add-unit NAME]... [--dry-run]
#   sudo systemd/install-league.sh --uninstall [--purge] [--dry-run]
#
# Safe to run again: each step checks first and only acts when something is
# missing or different (rerun it after a `git pull` to upgrade). Settings that
# exist are the user's and are kept: league.env, the logins, the database.
# docs/league.md, "Install it on a Debian machine", explains what goes where.
#
# The broker: /etc/mosquitto/conf.d/uno-showdown.conf (port 1883 on every
# interface, no anonymous login), its password file and its ACL (a unit may
# publish only under its own name). The league's login "league" has a new
# password in /etc/uno-showdown-league/mqtt-password (root:uno-league 0640).
# --add-unit NAME makes a unit's login, its password in
# /etc/uno-showdown-league/units/NAME.password (root, 0600), to copy to the
# unit's Pi (install.sh --with-uplink there; uplink.toml's username and
# password_file).
#
# The database: with PostgreSQL (the default) a role uno-league and a
# database uno_league, reached over PostgreSQL's local socket by the service's
# own user (Debian's peer login: no password anywhere); with --db sqlite, the
# file /var/lib/uno-showdown-league/league.sqlite3.
#
# DESTDIR (for tests and staging) prefixes every file path; users, groups,
# owners, apt-get, dpkg-query, runuser, mosquitto_passwd and systemctl are
# still whatever is first on PATH.
set -euo pipefail

readonly SERVICE=uno-showdown-league
readonly SERVICE_USER=uno-league
readonly PREFIX=/opt/uno-showdown-league
readonly VENV=$PREFIX/venv
readonly CONF_DIR=/etc/uno-showdown-league
readonly ENV_FILE=$CONF_DIR/league.env
readonly PASSWORD_FILE=$CONF_DIR/mqtt-password
readonly UNITS_DIR=$CONF_DIR/units
readonly SECRET_OWNER=root:$SERVICE_USER
readonly STATE_DIR=/var/lib/$SERVICE
readonly UNIT_FILE=/etc/systemd/system/$SERVICE.service
readonly BROKER_CONF=/etc/mosquitto/conf.d/uno-showdown.conf
readonly BROKER_PASSWD=/etc/mosquitto/uno-showdown.passwd
readonly BROKER_ACL=/etc/mosquitto/uno-showdown.acl
readonly BROKER_OWNER=root:mosquitto
readonly DATABASE=uno_league
readonly DEFAULT_LISTEN=0.0.0.0:8090
# A unit name, as the league's wire checks it (clean_place); these two are logins of their own.
readonly PLACE='^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$'
readonly RESERVED=(league homeassistant)
D=${DESTDIR:-}

usage() {
    cat <<USAGE
usage: install-league.sh [--source DIR] [--db postgresql | --db sqlite]
                         [--listen HOST:PORT] [--add-unit NAME]... [--dry-run]
       install-league.sh --uninstall [--purge] [--dry-run]

  --source DIR     project checkout to install (default: the one this script is in)
  --db KIND        where a new $ENV_FILE keeps the results: postgresql (the default:
                   PostgreSQL from apt, database $DATABASE) or sqlite (a file in $STATE_DIR)
  --listen HOST:PORT
                   where a new $ENV_FILE serves the pages (default $DEFAULT_LISTEN: the
                   venue's network)
  --add-unit NAME  a broker login for the unit NAME (its password in $UNITS_DIR/NAME.password);
                   repeat for more
  --dry-run        print what would be done and change nothing
  --uninstall      stop and remove the service, $PREFIX and the broker's league settings;
                   keep $CONF_DIR, the logins and the results
  --purge          with --uninstall: also remove $CONF_DIR, the logins, $STATE_DIR, the
                   PostgreSQL database and role, and the user
USAGE
}

PROG=install-league.sh
# shellcheck source=install-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"

# owned PATH OWNER MODE: put an existing file's owner and mode right.
owned() {
    local path=$1 owner=$2 mode=$3
    [[ -e $path ]] || (( dry_run )) || return 0
    [[ -e $path && $(stat -c %U:%G "$path") == "$owner" ]] || run chown "$owner" "$path"
    [[ -e $path && $(stat -c %a "$path") == "$mode" ]] || run chmod "0$mode" "$path"
}

installed() {
    [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

# write_secret PATH MODE: a new random password in PATH (root's), with MODE.
write_secret() {
    local new
    new=$(mktemp)
    python3 -c 'import secrets; print(secrets.token_urlsafe(24))' >"$new"
    run install -D -m "$2" "$new" "$1"
    rm -f "$new"
}

install_package() {
    # showdown league serves its pages with the table's web server.
    pip_install_project table,league "pip could not install the project"
}

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
args=("$@")
action=install
dry_run=0
purge=0
db=
listen=
units=()
while (( $# )); do
    case $1 in
        --source) [[ $# -ge 2 ]] || die "--source needs a directory"; source_dir=$2; shift ;;
        --source=*) source_dir=${1#--source=} ;;
        --db) [[ $# -ge 2 ]] || die "--db needs postgresql or sqlite"; db=$2; shift ;;
        --db=*) db=${1#--db=} ;;
        --listen) [[ $# -ge 2 ]] || die "--listen needs HOST:PORT"; listen=$2; shift ;;
        --listen=*) listen=${1#--listen=} ;;
        --add-unit) [[ $# -ge 2 ]] || die "--add-unit needs the unit's name"; units+=("$2"); shift ;;
        --add-unit=*) units+=("${1#--add-unit=}") ;;
        --dry-run) dry_run=1 ;;
        --uninstall) action=uninstall ;;
        --purge) purge=1 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; echo "install-league.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
if (( purge )) && [[ $action != uninstall ]]; then
    die "--purge only goes with --uninstall"
fi
if [[ $action == uninstall ]] && [[ -n $db || -n $listen || ${#units[@]} -gt 0 ]]; then
    die "--db, --listen and --add-unit do not go with --uninstall"
fi
[[ -z $db || $db == postgresql || $db == sqlite ]] \
    || die "--db: postgresql or sqlite, not '$db'"
if [[ -n $listen ]] && ! [[ $listen =~ ^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:]+\]):[0-9]{1,5}$ ]]; then
    die "--listen: HOST:PORT, like $DEFAULT_LISTEN, not '$listen'"
fi
for unit in "${units[@]}"; do
    [[ $unit =~ $PLACE ]] \
        || die "--add-unit: 1 to 32 lower-case letters, digits and inner dashes (like unit-1), not '$unit'"
    [[ " ${RESERVED[*]} " != *" $unit "* ]] \
        || die "--add-unit: '$unit' is the broker login of the $unit, not a unit's name"
done
if (( ! dry_run )) && [[ -z $D ]] && [[ $(id -u) -ne 0 ]]; then
    die "must be run as root (try: sudo $0 ${args[*]})"
fi

# What league.env says (an existing file is the user's), or what a new one will.
env_value() {
    sed -n "s/^$1=//p" "$D$ENV_FILE" 2>/dev/null | tail -1
}

do_install() {
    [[ -f $source_dir/pyproject.toml && -f $source_dir/systemd/$SERVICE.service ]] \
        || die "$source_dir is not an uno-showdown checkout (no pyproject.toml or systemd/$SERVICE.service)"
    source_dir=$(cd "$source_dir" && pwd)
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "python3 is older than 3.11 (Debian 12 or later is needed)"
    if [[ -e $D$ENV_FILE ]]; then
        [[ -z $db && -z $listen ]] || say "note: $ENV_FILE exists and is kept; --db and --listen change only a new one"
        case $(env_value LEAGUE_DB) in
            postgresql://*|postgres://*) db=postgresql ;;
            *) db=sqlite ;;
        esac
    fi
    db=${db:-postgresql}

    local packages=(mosquitto) missing=() package
    [[ $db != postgresql ]] || packages+=(postgresql)
    for package in "${packages[@]}"; do
        installed "$package" || missing+=("$package")
    done
    if (( ${#missing[@]} )); then
        run apt-get install -y --no-install-recommends "${missing[@]}" \
            || die "apt-get could not install ${missing[*]} (try: sudo apt-get update, then run this again)"
    fi

    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "UNO Showdown league" "$SERVICE_USER"
    fi

    local changed=0 before
    [[ -x $D$VENV/bin/python ]] || run python3 -m venv "$D$VENV"
    before=$(package_fingerprint)
    install_package
    [[ $(package_fingerprint) == "$before" ]] || changed=1

    write_env && changed=1
    write_league_password && changed=1
    broker_changed=0
    set_up_broker
    [[ $db != postgresql ]] || set_up_database

    if install_file "$source_dir/systemd/$SERVICE.service" "$D$UNIT_FILE" 0644; then
        changed=1
        run systemctl daemon-reload
    fi
    if (( broker_changed )); then
        run systemctl restart mosquitto
    fi
    if ! service_is enabled || ! service_is active; then
        run systemctl enable --now "$SERVICE"
    elif (( changed )); then
        run systemctl restart "$SERVICE"
    fi
    if (( dry_run )); then
        say "dry run: nothing was changed; without --dry-run the installer runs the lines above"
        return 0
    fi
    local address port
    address=$(hostname -I 2>/dev/null | awk '{print $1}') || true
    port=$(env_value LEAGUE_LISTEN); port=${port##*:}
    say "done: the standings at http://${address:-THIS-MACHINE}:${port:-8090}/ and the units at /units"
    say "  journalctl -u $SERVICE -f   shows the league's log; its settings are in $ENV_FILE"
    say "  a unit's login: sudo $0 --add-unit NAME (then copy $UNITS_DIR/NAME.password to the unit's Pi)"
}

# A new league.env from --db and --listen; an existing one is the user's: kept.
write_env() {
    [[ ! -e $D$ENV_FILE ]] || return 1
    local url new
    if [[ $db == postgresql ]]; then
        url="postgresql:///$DATABASE"   # the local socket, as the service's own user (peer)
    else
        url="sqlite:$STATE_DIR/league.sqlite3"
    fi
    new=$(mktemp)
    cat >"$new" <<SETTINGS
# The league's settings (uno-showdown-league.service; docs/league.md). Made by
# install-league.sh, kept by its later runs. After a change:
#   sudo systemctl restart $SERVICE
# The venue's broker (this machine's mosquitto), HOST:PORT; the league logs in as "league".
LEAGUE_BROKER=127.0.0.1:1883
# Where the results are kept: postgresql:///DB (this machine's PostgreSQL, as the
# service's user), postgresql://USER@HOST/DB, or sqlite:PATH.
LEAGUE_DB=$url
# Where the pages are served: $DEFAULT_LISTEN for the venue's network, 127.0.0.1:8090 for this machine.
LEAGUE_LISTEN=${listen:-$DEFAULT_LISTEN}
# More options of showdown league, e.g. --venue bar-1 --allow-host league.local
LEAGUE_OPTIONS=
SETTINGS
    run install -D -m 0644 "$new" "$D$ENV_FILE"
    rm -f "$new"
}

# The league's broker password: made once, root:uno-league 0640 (the service
# reads it through its group); returns 0 if it made a new one.
write_league_password() {
    local dst=$D$PASSWORD_FILE made=1
    if [[ ! -s $dst ]]; then
        write_secret "$dst" 0640
        made=0
    fi
    owned "$dst" "$SECRET_OWNER" 640
    return $made
}

# add_login NAME PASSWORD_FILE: NAME's line in the broker's password file,
# hashed by mosquitto_passwd (in a file of its own: -U would hash the hashes
# already there again), replacing any line NAME had.
add_login() {
    local name=$1 secret=$2 plain
    if (( dry_run )); then
        say "would run: mosquitto_passwd -U (a new login '$name') >> $D$BROKER_PASSWD"
        return 0
    fi
    plain=$(mktemp)
    printf '%s:%s\n' "$name" "$(head -n1 "$secret")" >"$plain"
    run mosquitto_passwd -U "$plain"
    touch "$D$BROKER_PASSWD"
    grep -v "^$name:" "$D$BROKER_PASSWD" >"$plain.rest" || true
    cat "$plain" >>"$plain.rest"
    cat "$plain.rest" >"$D$BROKER_PASSWD"
    rm -f "$plain" "$plain.rest"
}

has_login() {
    grep -q "^$1:" "$D$BROKER_PASSWD" 2>/dev/null
}

# The broker's config, ACL and logins: the league's (new with a new password),
# and one per --add-unit. Sets broker_changed when mosquitto must restart.
set_up_broker() {
    install_file "$source_dir/systemd/league-mosquitto.conf" "$D$BROKER_CONF" 0644 && broker_changed=1
    install_file "$source_dir/systemd/league-mosquitto.acl" "$D$BROKER_ACL" 0640 && broker_changed=1
    if [[ $D$PASSWORD_FILE -nt $D$BROKER_PASSWD ]] || ! has_login league; then
        add_login league "$D$PASSWORD_FILE"
        broker_changed=1
    fi
    local unit secret
    for unit in "${units[@]}"; do
        secret=$D$UNITS_DIR/$unit.password
        if has_login "$unit" && [[ -s $secret ]]; then
            say "note: the unit $unit has a login already (its password: $UNITS_DIR/$unit.password)"
            continue
        fi
        [[ -s $secret ]] || write_secret "$secret" 0600
        add_login "$unit" "$secret"
        broker_changed=1
        say "the unit $unit may log in: copy $UNITS_DIR/$unit.password to its Pi as"
        say "  /etc/uno-showdown/uplink-password (sudo chown root:uno-showdown, chmod 640 there) and set"
        say "  username = \"$unit\" and password_file = \"/etc/uno-showdown/uplink-password\" in its uplink.toml"
    done
    owned "$D$BROKER_PASSWD" "$BROKER_OWNER" 640
    owned "$D$BROKER_ACL" "$BROKER_OWNER" 640
}

# pg_has role|database NAME: whether PostgreSQL has it (asked as its superuser,
# by peer login as the postgres user).
pg_has() {
    local query="SELECT 1 FROM pg_roles WHERE rolname = '$2'"
    [[ $1 == role ]] || query="SELECT 1 FROM pg_database WHERE datname = '$2'"
    runuser -u postgres -- psql -XtAc "$query" 2>/dev/null | grep -q 1
}

# The role uno-league and the database uno_league it owns, made if missing.
set_up_database() {
    if ! pg_has role "$SERVICE_USER"; then
        run runuser -u postgres -- createuser "$SERVICE_USER"
    fi
    if ! pg_has database "$DATABASE"; then
        run runuser -u postgres -- createdb --owner "$SERVICE_USER" "$DATABASE"
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
    [[ ! -e $D$PREFIX ]] || run rm -rf "$D$PREFIX"
    if [[ -e $D$BROKER_CONF ]]; then
        run rm -f "$D$BROKER_CONF"
        ! service_is active mosquitto || run systemctl restart mosquitto
    fi
    if (( purge )); then
        local path
        for path in "$D$CONF_DIR" "$D$STATE_DIR" "$D$BROKER_PASSWD" "$D$BROKER_ACL"; do
            [[ ! -e $path ]] || run rm -rf "$path"
        done
        if command -v runuser >/dev/null && getent passwd postgres >/dev/null; then
            if pg_has database "$DATABASE"; then
                run runuser -u postgres -- dropdb "$DATABASE"
            fi
            if pg_has role "$SERVICE_USER"; then
                run runuser -u postgres -- dropuser "$SERVICE_USER"
            fi
        fi
        ! getent passwd "$SERVICE_USER" >/dev/null || run userdel "$SERVICE_USER"
    else
        say_kept "$CONF_DIR (settings and logins), $BROKER_PASSWD, $STATE_DIR and the database $DATABASE"
    fi
    (( ! dry_run )) || say "dry run: nothing was changed"
}

if [[ $action == install ]]; then
    do_install
else
    do_uninstall
fi
