#!/bin/bash
# Drive the card-launcher motor pins low. Run by systemd as root after every stop
# of uno-showdown-unit (ExecStopPost=+), so a crash or a SIGKILL cannot leave
# the motor running. Raspberry Pi only: needs `pinctrl` (package raspi-utils).
#
# usage: motor-safe.sh [CONFIG]    (default /etc/uno-showdown/unit.toml)
#
# The pins come from the effective config (`showdown-unit check-config`); if it
# cannot be read, the packaged defaults 23 24 12 are used, because forcing the
# wrong pins low is better than leaving the motor on.
set -uo pipefail

config=${1:-/etc/uno-showdown/unit.toml}
showdown_unit=${SHOWDOWN_UNIT:-/opt/uno-showdown/venv/bin/showdown-unit}
pinctrl=${PINCTRL:-pinctrl}
default_pins=(23 24 12)   # motor_a motor_b motor_enable in firmware_host/service/default.toml

say() { echo "motor-safe: $*" >&2; }

pins=()
if effective=$("$showdown_unit" check-config --file-only --config "$config" 2>&1); then
    for key in motor_a motor_b motor_enable; do
        # check-config prints `key = value`; an absent optional pin prints "".
        value=$(sed -n "s/^${key} = \\([0-9][0-9]*\\)\$/\\1/p" <<<"$effective")
        if [[ -n $value ]]; then
            pins+=("$value")
        fi
    done
    if [[ ${#pins[@]} -eq 0 ]]; then
        say "no motor pins in the output of check-config; using the default pins"
    fi
else
    say "cannot read $config (${effective##*$'\n'}); using the default pins"
fi
if [[ ${#pins[@]} -eq 0 ]]; then
    pins=("${default_pins[@]}")
fi

if ! command -v "$pinctrl" >/dev/null; then
    say "pinctrl not found (install raspi-utils); motor pins ${pins[*]} NOT forced low"
    exit 1
fi

status=0
for pin in "${pins[@]}"; do
    # op dl: output, driven low. pinctrl writes the registers, so the level stays.
    if "$pinctrl" set "$pin" op dl; then
        say "GPIO$pin driven low"
    else
        say "pinctrl failed for GPIO$pin"
        status=1
    fi
done
exit "$status"
